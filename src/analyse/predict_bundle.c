/* SPDX-License-Identifier: MIT */
/* predict_bundle.c: diagnose --predict (predict.h): check the models load, add the
 * predictions to the bundle, rewrite it and record it as the last bundle. */
#include "analyse/predict.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "bundle/bundle.h"
#include "bundle/bundle_last.h"
#include "model/model_spec.h"

/* ---- diagnose --predict ------------------------------------------------------------- */

rl_status rl_pred_check_models(const char *const *specs, size_t n, rl_error *err)
{
    if (n > RL_PRED_MAX_MODELS)
        return rl_fail(err, RL_EINPUT, "--predict: at most %d models", RL_PRED_MAX_MODELS);
    rl_status st = RL_OK;
    for (size_t i = 0; i < n && st == RL_OK; i++) {
        rl_gguf_model m;
        st = rl_model_spec_load(specs[i], NULL, &m, err);
        rl_gguf_model_free(&m);
        if (st != RL_OK)
            rl_prefix(err, "--predict");
    }
    return st;
}

rl_status rl_pred_bundle_add(cJSON *bundle, const char *const *specs, size_t n, rl_error *err)
{
    if (n == 0)
        return RL_OK;
    cJSON_DeleteItemFromObjectCaseSensitive(bundle, "predictions");
    rl_pred_fit f;
    rl_error fe = {RL_OK, ""};
    if (rl_pred_fit_from_bundle(bundle, "bundle", &f, &fe) != RL_OK) {
        const char *why = strchr(fe.msg, '(');
        return rl_json_add_unavailable(bundle, "predictions",
                                       why ? "the bundle has no fit (see analysis.fit)" : "no fit")
                   ? RL_OK
                   : rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "kind", "derived") &&
              rl_json_attach(o, "fit", rl_pred_fit_to_json(&f));
    cJSON *arr = ok ? cJSON_AddArrayToObject(o, "models") : NULL;
    ok = ok && arr;
    rl_status st = ok ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    uint64_t depth0 = 0;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        rl_gguf_model m;
        rl_prediction p;
        st = rl_model_spec_load(specs[i], stderr, &m, err);
        if (st == RL_OK)
            st = rl_predict(&f, &m, specs[i], &depth0, 1, 0, &p, err);
        rl_gguf_model_free(&m);
        if (st != RL_OK)
            break;
        cJSON *x = rl_prediction_to_json(&p);
        rl_prediction_free(&p);
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
        }
    }
    if (st != RL_OK) {
        cJSON_Delete(o);
        return st;
    }
    return rl_json_attach(bundle, "predictions", o) ? RL_OK
                                                    : rl_fail(err, RL_EINTERNAL, "out of memory");
}

rl_status rl_pred_after_diagnose(cJSON *bundle, const char *out_dir, const char *const *specs,
                                 size_t n, rl_status st, rl_error *err)
{
    char *path = rl_asprintf("%s/bundle.json", out_dir);
    if (!path)
        return st == RL_OK ? rl_fail(err, RL_EINTERNAL, "out of memory") : st;
    if (st == RL_OK && n > 0) {
        st = rl_pred_bundle_add(bundle, specs, n, err);
        if (st == RL_OK)
            st = rl_bundle_write(bundle, path, err);
    }
    rl_error e = {RL_OK, ""};
    if (rl_bundle_remember(path, &e) != RL_OK)
        rl_tty_printf(stderr, "diagnose: note: not recorded as the last bundle for predict: %s\n",
                      e.msg);
    free(path);
    return st;
}
