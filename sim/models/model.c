/* model.c: the table of models, and which rules serve K slots. */
#include "model.h"

#include <string.h>

const dl_model *const dl_models[] = {&dl_model_single, &dl_model_sync, &dl_model_resource, 0};

const dl_model *dl_model_find(const char *name)
{
    for (int i = 0; dl_models[i]; i++)
        if (!strcmp(name, dl_models[i]->name) ||
            (dl_models[i]->legacy && !strcmp(name, dl_models[i]->legacy)))
            return dl_models[i];
    return 0;
}

const dl_rules *dl_rules_for(int slots)
{
    return slots == 0 ? &dl_rules_unlimited : slots == 1 ? &dl_rules_one_slot : &dl_rules_k_slots;
}
