/* kept_bytes.c: the bytes autograd keeps of a norm and of an attention score, which the layer
 * kinds' formulas (layer_kinds.c) and the layer's own (activations.c) sum. */
#include "kept_bytes.h"

/* One norm of width w. RMSNorm as Transformers runs it keeps its input upcast
 * to fp32 (bn), its fp32 reciprocal RMS (4 bytes) and the normalised input
 * the weight multiplies (bc; Qwen3.5's zero-centred norm keeps it in fp32,
 * bn, and once a layer its fp32 (1 + w), see kept_norm_layer_bytes); recomputed,
 * it keeps its input (bc). LayerNorm (a norm with a bias) keeps its input
 * (bn); ndlua leaves out its fp32 mean and inverse deviation (8 bytes a
 * token), as Korthikanti et al. do. */
double kept_norm_bytes(const model_t *m, const derived_t *d, const signed char *keep, double w)
{
    if (!keeps(keep, SW_NORMOP))
        return w * d->bytes_compute;
    if (m->norm_bias)
        return w * (d->fused_norm ? d->bytes_compute : d->bytes_norm);
    /* a fused RMSNorm kernel (Transformer Engine's, Apex's, torch.compile's)
     * keeps its input in the compute width and one fp32 rstd a row */
    if (d->fused_norm)
        return w * d->bytes_compute + 4.0;
    double normalised = m->family.zero_centered_norms ? d->bytes_norm : d->bytes_compute;
    return w * (d->bytes_norm + normalised) + 4.0;
}

/* What a kept norm of width w holds once a layer: Qwen3.5's fp32 (1 + w). */
double kept_norm_layer_bytes(const model_t *m, const signed char *keep, double w)
{
    return m->family.zero_centered_norms && keeps(keep, SW_NORMOP) ? 4.0 * w : 0.0;
}

/* Bytes an attention score keeps without flash attention: the softmax's
 * output (bs), the attention dropout's mask (bd) and the probabilities the AV
 * product reads (bc). Recomputing the softmax (its switch off) drops the
 * first two; what else goes depends on how far the recomputed region reaches:
 *   Megatron's rule recomputes the whole core attention, QK^T to AV
 *     (Korthikanti et al.): the probabilities go too (headCast switch)
 *   otherwise (HyperParallel's rule, a range's own ops) PyTorch recomputes
 *     the softmax and its cast as one region, which keeps its input, the
 *     scores (bc), while AV keeps the probabilities (bc) */
double kept_score_bytes(const derived_t *d, const signed char *keep)
{
    double bc = d->bytes_compute;
    if (keeps(keep, SW_SOFTMAX))
        return d->bytes_softmax + d->bytes_dropout * keeps(keep, SW_DROPOUT) + bc;
    if (d->core_attention_recompute)
        return bc * keeps(keep, SW_HEADCAST);
    return 2.0 * bc;
}
