/* SPDX-License-Identifier: MIT */
/* predict_text.h: predictions (analyse/predict.h) for people: a terminal table or Markdown,
 * with the fit, where each bandwidth came from, and the caveats. Only reads what it is given;
 * writes to out. */
#ifndef RL_PREDICT_TEXT_H
#define RL_PREDICT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "analyse/predict.h"

/* bundle: the bundle's name as the user gave it (escaped here). */
void rl_prediction_print(FILE *out, const rl_pred_fit *f, const char *bundle,
                         const rl_prediction *p, size_t n);
void rl_prediction_markdown(FILE *out, const rl_pred_fit *f, const char *bundle,
                            const rl_prediction *p, size_t n);

#endif
