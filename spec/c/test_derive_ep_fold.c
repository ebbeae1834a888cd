/* test_derive_ep_fold.c: where an EP group's ranks stand and what a rank of
 * it dispatches, with the experts TP-split as attention is (t_exp = t) and
 * folded apart from it (t_exp < t: Megatron-Core's MoE parallel folding,
 * megatron/core/parallel_state.py, the expert layers' RankGenerator of
 * tp = expert_tensor_parallel_size, ep, dp, cp = 1, order tp-ep-dp).
 *
 * Each expected value is worked by hand from the degrees: t_exp = t, EP
 * carved from DP, ranks t·cp apart and every rank dispatching the whole
 * micro-batch (ndlua's price there) where the runtime does not fold,
 * its own shard tokens / t then a gather over the t expert-TP ranks where
 * it does under SP (Megatron-Core's MoEAlltoAllTokenDispatcher,
 * megatron/core/transformer/moe/token_dispatcher.py); t_exp < t, ranks t_exp apart
 * (CP folded in), each rank its own sequence shard tokens / t under SP. The
 * seconds are the H800 machine's of test_timing_ep.c (8 devices a node,
 * 160 GB/s inside, 45 GB/s between nodes) for a micro-batch whose whole
 * dispatch is 1 GB. */
#include <string.h>

#include "check.h"
#include "core/derive.h"
#include "core/timing.h"
#include "machine.h"

static run_t degrees(int64_t dp, int64_t tp, int64_t cp, int64_t ep, int64_t etp, bool folding)
{
    run_t r;
    memset(&r, 0, sizeof r);
    r.dp = dp, r.tp = tp, r.cp = cp, r.ep = ep, r.etp = etp, r.pp = 1;
    r.sequence_parallel = tp > 1;
    r.parallelism.expert_folding = folding;
    return r;
}

int main(void)
{
    const double tol = 1e-12, gb = 1e9;
    hardware_t hw = machine_two_levels(160, 45);

    /* TP 4, DP 8, EP 8, etp unstated, a runtime that does not fold: the
     * experts split over TP 4, EP from DP: ranks 4 apart, the whole
     * micro-batch (unchanged) */
    run_t r = degrees(8, 4, 1, 8, 0, false);
    CHECK(expert_tp_degree(&r) == 4, "etp unstated: t_exp = t = 4");
    CHECK(ep_rank_stride(&r) == 4, "t_exp = t: ranks t = 4 apart");
    CHECK_NEAR(ep_token_share(&r), 1.0, tol, "t_exp = t, not folding: the whole micro-batch");
    CHECK(!etp_gathers_tokens(&r), "t_exp = t, not folding: no expert-TP gather");
    /* 8 ranks 4 apart span 32 devices, 2 of them a node: 1 peer inside, 6
     * outside: 6/7 GB over IB, 0.0190476 s */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb * ep_token_share(&r), 8, ep_rank_stride(&r)), 6.0 / 7.0 / 45.0, tol,
               "t_exp = t: EP 8 four apart, 0.0190476 s");

    /* The same under Megatron-Core (expert_folding), ETP = TP = 4 by
     * default, SP: MoEAlltoAllTokenDispatcher all_to_all's the rank's own
     * S/TP tokens over the EP group (still 4 apart) and gathers them over
     * the expert-TP group after: a quarter of the bytes, 6/7 x 0.25 GB over
     * IB = 0.0047619 s; the gather and reduce-scatter, 4 ways each (forward
     * and backward) of (t - 1)/t of the 1 GB whole (0.25 GB received a rank,
     * 3 peers' shards): 0.75 GB over the TP ranks' NVLink, 0.75/160 =
     * 0.0046875 s */
    r = degrees(8, 4, 1, 8, 0, true);
    CHECK(ep_rank_stride(&r) == 4, "folding, t_exp = t: ranks still 4 apart");
    CHECK(etp_gathers_tokens(&r), "folding, t_exp = t, SP: the expert-TP group gathers");
    CHECK_NEAR(ep_token_share(&r), 0.25, tol, "folding, t_exp = t, SP: tokens / t");
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb * ep_token_share(&r), 8, ep_rank_stride(&r)), 6.0 / 7.0 / 45.0 / 4.0,
               tol, "folding, t_exp = t: EP 8 four apart, a quarter, 0.0047619 s");
    CHECK_NEAR(0.75 * gb / (level_gbps(&hw, r.tp) * 1e9), 0.0046875, tol, "the expert-TP gather inside the node");
    /* DeepEP (the flex dispatcher): one fused all-to-all over TP x EP with
     * the routing map expanded over the TP ranks: the whole bytes, no gather */
    r.kernels.deepep = true;
    CHECK(!etp_gathers_tokens(&r), "DeepEP: no expert-TP gather");
    CHECK_NEAR(ep_token_share(&r), 1.0, tol, "DeepEP: the whole micro-batch's bytes");
    /* without SP each TP rank holds the whole micro-batch: nothing to gather */
    r = degrees(8, 4, 1, 8, 0, true);
    r.sequence_parallel = false;
    CHECK(!etp_gathers_tokens(&r), "no SP: no expert-TP gather");
    CHECK_NEAR(ep_token_share(&r), 1.0, tol, "no SP: the whole micro-batch");
    /* TP 1: no expert-TP group */
    r = degrees(8, 1, 1, 8, 0, true);
    CHECK(!etp_gathers_tokens(&r), "TP 1: no expert-TP gather");

    /* the same run stating etp 1 where 1 is not read as stated (the
     * reference's lineage, a train.yaml's 0/1 = none): as unstated */
    r = degrees(8, 4, 1, 8, 1, false);
    CHECK(expert_tp_degree(&r) == 4 && ep_rank_stride(&r) == 4, "etp 1 unread: as unstated");
    CHECK_NEAR(ep_token_share(&r), 1.0, tol, "etp 1 unread: the whole micro-batch");

    /* Megatron's --expert-tensor-parallel-size 1: experts whole, EP 8 over 8
     * consecutive ranks (one node), each sending its quarter: 0.25 GB over
     * NVLink, 0.25/160 = 0.0015625 s */
    r = degrees(8, 4, 1, 8, 1, true);
    CHECK(expert_tp_degree(&r) == 1, "etp 1 stated: t_exp = 1");
    CHECK(ep_rank_stride(&r) == 1, "etp 1 stated: consecutive ranks");
    CHECK_NEAR(ep_token_share(&r), 0.25, tol, "etp 1 stated: tokens / t");
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb * ep_token_share(&r), 8, ep_rank_stride(&r)), 0.0015625, tol,
               "etp 1 stated: EP 8 in one node, a quarter of the tokens, 0.0015625 s");

    /* CP 2 beside it: the expert layers fold CP too (cp = 1 in their rank
     * generator): still consecutive, where t_exp = t puts them t·cp = 8 apart */
    r = degrees(4, 4, 2, 8, 1, true);
    CHECK(ep_rank_stride(&r) == 1, "folded: CP folded in, ranks consecutive");
    r = degrees(4, 4, 2, 4, 0, true);
    CHECK(ep_rank_stride(&r) == 8, "t_exp = t under CP 2: t·cp = 8 apart");

    /* ETP 2 under TP 4: ranks 2 apart, each rank its own quarter */
    r = degrees(8, 4, 1, 8, 2, false);
    CHECK(expert_tp_degree(&r) == 2 && ep_rank_stride(&r) == 2, "etp 2 under TP 4: 2 apart");
    CHECK_NEAR(ep_token_share(&r), 0.25, tol, "etp 2 under TP 4: tokens / t");

    /* ndlua's own derive: EP 8 over DP 2 x TP 4 borrows the TP ranks (t_exp 1);
     * 4 apart the group would span 32 devices of a stage of 8: consecutive */
    r = degrees(2, 4, 1, 8, 0, false);
    CHECK(expert_tp_degree(&r) == 1, "EP past DP: t_exp clamped to 1");
    CHECK(ep_rank_stride(&r) == 1, "EP past DP: inside the stage's 8 devices");
    CHECK_NEAR(ep_token_share(&r), 0.25, tol, "EP past DP under SP: tokens / t");
    /* without SP the TP ranks hold the whole micro-batch each */
    r.sequence_parallel = false;
    CHECK_NEAR(ep_token_share(&r), 1.0, tol, "no SP: the whole micro-batch");

    return check_done();
}
