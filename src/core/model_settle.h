/* model_settle.h: settling a model built from a spec (model_settle.c). */
#ifndef NDLUA_MODEL_SETTLE_H
#define NDLUA_MODEL_SETTLE_H

#include "model.h"

/* Resolves each kind's geometry and parameters; returns NULL or a message
 * naming the field that contradicts (static text or written into err). */
const char *model_settle(model_t *m, char *err, int errlen);

#endif
