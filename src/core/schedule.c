/* schedule.c: micro-batches in flight per pipeline schedule (memory-model.md §8.1). */
#include "schedule.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Interleaved 1F1B (vpp > 1) as Megatron schedules it: stage r runs
 * 2·(p − r − 1) + (v − 1)·p warm-up forwards and one more before its first
 * backward, so stage 0 holds p·v + p − 1 chunk micro-batches (Korthikanti
 * et al.'s interleave factor 1 + (p − 1)/(p·v) of p micro-batches of the
 * stage's layers; 31 at p = 8, v = 3). The reference holds one fewer on
 * stage 0; ndlua holds what Megatron's schedule holds. Middle chunks hold
 * base = min(p, m); the first chunk holds base + extra, the last `last`, where
 *   extra = base − stage − 1, last = base − stage (+ n − 1 for seqpipe),
 *   a last above base gives one to extra, one below takes one from it. */
static int64_t interleaved(const run_t *r, int64_t stage, int64_t chunk, int64_t base, int64_t n, int seqpipe)
{
    if (chunk > 0 && chunk < r->vpp - 1)
        return base;
    int64_t extra = base - stage - 1, last = base - stage + (seqpipe ? n - 1 : 0);
    if (seqpipe && last > base) {
        last -= 1;
        extra += 1;
    } else if (last < base) {
        last += min64(1, max64(0, extra));
        extra = max64(0, extra - 1);
    }
    int64_t first = base + max64(0, extra), m = schedule_micro_batches(r);
    if (!seqpipe && first > m) {
        /* One round (m = p, Megatron's least): the forwards the first
         * chunk would take from a second round do not exist, and no chunk
         * holds more than the step's m micro-batches. Both runtimes cap the
         * warm-up at the step's m·v forwards (torch.distributed.pipelining's
         * _get_warmup_ops, schedules.py: "We cannot have more warmup
         * operations than there are number of microbatches"; Megatron's
         * min(num_warmup_microbatches, total_num_microbatches)), run chunk
         * by chunk in groups of m: the first chunk holds m, the last the
         * rest of the stage's count, m at most. */
        last = min64(m, last + first - m);
        first = m;
    }
    return chunk == 0 ? first : last;
}

int64_t micro_factor_priced(const run_t *r, int64_t stage, int64_t chunk)
{
    return max64(1, micro_factor(r, stage, chunk));
}

/* Where a step runs as several schedules (one a local batch), the in-flight
 * counts are those of one schedule of m = schedule_micro_batches: each
 * schedule drains before the next fills (torch.distributed.pipelining's
 * step() runs its own warm-up, steady state and cool-down), so no stage
 * holds the forwards of two schedules at once. */
int64_t micro_factor(const run_t *r, int64_t stage, int64_t chunk)
{
    int64_t m = schedule_micro_batches(r), base = min64(r->pp, m);
    switch (r->pipeline.schedule) {
    case SCHED_GPIPE:
        /* GPipe runs every forward before any backward: all m micro-batches
         * are held. (The reference writes p here, which exceeds m when
         * m < p; ndlua holds what the schedule holds.) */
        return m;
    case SCHED_ZERO_BUBBLE_V:
        /* DualPipeV: the first chunk 2·base − 1 − stage, the second `stage` */
        return chunk == 0 ? 2 * base - 1 - stage : stage;
    case SCHED_SEQPIPE:
        if (r->vpp > 1)
            return interleaved(r, stage, chunk, base, r->pipeline.seq_split, 1);
        return base - stage + r->pipeline.seq_split - 1;
    default:
        if (r->vpp > 1)
            return interleaved(r, stage, chunk, base, 1, 0);
        return base - stage;
    }
}

const char *schedule_local_batch_refusal(const run_t *r)
{
    int64_t local = r->pipeline.local_batch_size;
    if (local <= 0)
        return NULL;
    if (!r->pipeline.schedule_per_local_batch)
        return "the runtime runs all of a step's micro-batches in one pipeline schedule (schedule_per_local_batch "
               "false): a local batch changes nothing it runs";
    if (r->micro_batch_size <= 0 || local % r->micro_batch_size != 0)
        return "is not a multiple of micro_batch_size (a schedule runs whole micro-batches)";
    if (r->micro_batch_num % (local / r->micro_batch_size) != 0)
        return "does not divide the step's share of a data-parallel rank, micro_batch_size x micro_batch_num "
               "(a step runs whole local batches)";
    return NULL;
}

int64_t schedule_micro_batches(const run_t *r)
{
    if (schedule_local_batch_refusal(r) != NULL || r->pipeline.local_batch_size <= 0)
        return r->micro_batch_num;
    return r->pipeline.local_batch_size / r->micro_batch_size;
}

int64_t schedule_count(const run_t *r)
{
    return r->micro_batch_num / schedule_micro_batches(r);
}
