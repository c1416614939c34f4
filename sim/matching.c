/* matching.c: communicators and their call slots (matching.h). */
#include "matching.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

int dl_matching_init(dl_matching *M, const dl_layout *L, const int *comm_of, char *err,
                     size_t errlen)
{
    memset(M, 0, sizeof *M);
    size_t nc = (size_t)L->ncolls;
    M->comm_of = dl_xmalloc((nc ? nc : 1) * sizeof(int));
    for (int c = 0; c < L->ncolls; c++) {
        M->comm_of[c] = comm_of ? comm_of[c] : L->coll_group[c];
        if (M->comm_of[c] < 0) {
            dl_matching_free(M);
            return dl_fail(err, errlen, "collective %d has no communicator", c);
        }
        if (M->comm_of[c] >= M->ncomms)
            M->ncomms = M->comm_of[c] + 1;
    }
    M->comm_off = dl_xcalloc((size_t)M->ncomms + 1, sizeof(int));
    M->call_off = dl_xcalloc((size_t)M->ncomms + 1, sizeof(int));
    M->comm_coll = dl_xmalloc((nc ? nc : 1) * sizeof(int));
    int *first = dl_xmalloc((size_t)(M->ncomms ? M->ncomms : 1) * sizeof(int));
    for (int k = 0; k < M->ncomms; k++)
        first[k] = -1;
    for (int c = 0; c < L->ncolls; c++) {
        int k = M->comm_of[c];
        M->comm_off[k + 1]++;
        if (first[k] < 0) {
            first[k] = c;
        } else if (!dl_group_same_members(&L->groups[L->coll_group[c]], &L->groups[L->coll_group[first[k]]])) {
            int a = first[k];
            free(first);
            dl_matching_free(M);
            return dl_fail(err, errlen,
                           "collectives %d and %d share a communicator but not their members", a,
                           c);
        }
    }
    for (int k = 0; k < M->ncomms; k++) {
        M->comm_off[k + 1] += M->comm_off[k];
        M->call_off[k + 1] = M->call_off[k] + (first[k] < 0 ? 0 : L->groups[L->coll_group[first[k]]].n);
    }
    int *fill = dl_xcalloc((size_t)(M->ncomms ? M->ncomms : 1), sizeof(int));
    for (int c = 0; c < L->ncolls; c++) { /* ascending: each communicator's in id order */
        int k = M->comm_of[c];
        M->comm_coll[M->comm_off[k] + fill[k]++] = c;
    }
    free(fill);
    free(first);
    return 0;
}

void dl_matching_free(dl_matching *M)
{
    free(M->comm_of);
    free(M->comm_off);
    free(M->comm_coll);
    free(M->call_off);
    memset(M, 0, sizeof *M);
}

const char *dl_matching_name(int matching)
{
    return matching == DL_MATCH_ORDER ? "order" : "identity";
}

int dl_matching_parse(const char *s)
{
    if (!strcmp(s, "identity"))
        return DL_MATCH_IDENTITY;
    if (!strcmp(s, "order"))
        return DL_MATCH_ORDER;
    return -1;
}
