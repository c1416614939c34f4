/* model.c: the table of models. */
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
