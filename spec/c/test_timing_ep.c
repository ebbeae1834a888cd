/* test_timing_ep.c: the expert all-to-all's time over a machine of nodes.
 *
 * The machine is the H800 profile's: 8 devices a node at 160 GB/s each way
 * (NVLink 400 GB/s both ways x 0.8), 45 GB/s between nodes (400 Gb/s IB x
 * 0.9). A rank sends 1 GB (1e9 bytes) in all, 1/(ep − 1) of it to each peer;
 * the expected seconds are worked by hand below from that split, and the
 * same bytes on DeepEP's per-node dispatch. */
#include "check.h"
#include "core/timing.h"
#include "machine.h"

int main(void)
{
    hardware_t hw = machine_two_levels(160, 45);
    const double gb = 1e9, tol = 1e-12;

    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 1, 1), 0.0, tol, "EP 1 sends nothing");
    /* EP 8 in one node: all of it over NVLink, 1e9 / 160e9 s */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 8, 1), 1.0 / 160.0, tol, "EP 8 inside a node: NVLink");
    /* EP 64 over 8 nodes: 7 of the 63 peers inside the node (7/63 GB over
     * NVLink = 0.000694 s), 56 outside (56/63 GB over IB = 0.019753 s), at
     * once: the IB part, where one level would price 1/45 = 0.022222 s */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 64, 1), 56.0 / 63.0 / 45.0, tol, "EP 64 over 8 nodes: its IB share");
    /* EP 16 over 2 nodes: 7/15 GB inside (0.002917 s), 8/15 outside (0.011852 s) */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 16, 1), 8.0 / 15.0 / 45.0, tol, "EP 16 over 2 nodes: half off-node");
    /* EP 8 over TP 2 (stride 2): 4 of the group's ranks a node, 3 peers inside, 4 outside */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 8, 2), 4.0 / 7.0 / 45.0, tol, "EP 8 with TP 2: 4 of 7 peers off-node");
    /* EP 4 over TP 8: one group rank a node, every peer off-node: 1/45 s */
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 4, 8), 1.0 / 45.0, tol, "EP 4 with TP 8: all over IB");
    /* DeepEP (deepep_seconds), the same 1 GB of the plain all-to-all, k = 8
     * picks: one copy of every token is u = 1e9·ep/((ep − 1)·8) bytes.
     * EP 64 over 8 nodes, 256 experts (32 a node): a node is missed by all 8
     * picks with C(224,8)/C(256,8) = (224·223·…·217)/(256·255·…·249) =
     * 0.338168; D = 8·(1 − 0.338168) = 5.29465 nodes, 7/8 of them remote:
     * outside = u·4.63282/45e9 = 0.013073 s; inside = u·8·7/8/160e9 = 0.005556 s */
    double u64 = gb * 64.0 / (63.0 * 8.0), miss = 1.0;
    for (int i = 0; i < 8; i++)
        miss *= (224.0 - i) / (256.0 - i);
    CHECK_NEAR(miss, 0.338168, 1e-6, "C(224,8)/C(256,8) by hand");
    CHECK_NEAR(deepep_seconds(&hw, gb, 64, 1, 256, 8, 0), u64 * 8.0 * (1.0 - miss) * 7.0 / 8.0 / 45e9, tol,
               "DeepEP EP 64 over 8 nodes: once a node over IB");
    CHECK_NEAR(deepep_seconds(&hw, gb, 64, 1, 256, 8, 0), 0.0130733, 1e-6, "DeepEP EP 64: 0.0130733 s by hand");
    /* node limit 4 (DeepSeek-V3's M): the picks fall on 4 of the 8 nodes'
     * 128 experts, missed with C(96,8)/C(128,8) = 0.092747; D = 3.62901,
     * outside = u·3.62901·7/8/45e9 = 0.0089611 s */
    CHECK_NEAR(deepep_seconds(&hw, gb, 64, 1, 256, 8, 4), 0.0089611, 1e-6, "DeepEP EP 64, at most 4 nodes a token");
    /* a limit at or above the nodes spanned changes nothing */
    CHECK_NEAR(deepep_seconds(&hw, gb, 64, 1, 256, 8, 8), deepep_seconds(&hw, gb, 64, 1, 256, 8, 0), tol,
               "DeepEP node limit 8 of 8 nodes: none");
    /* EP 16 over 2 nodes, 64 experts (4 a rank), u = 1e9·16/120: a node is
     * missed with C(32,8)/C(64,8) = 0.0024111, D = 1.99518, outside =
     * u·0.99759/45e9 = 0.0029559 s; a rank is missed with C(60,8)/C(64,8) =
     * (56·55·54·53)/(64·63·62·61) = 0.578067, so a token reaches
     * R = 16·0.421933 = 6.75093 ranks, one copy each (DeepEP's
     * is_token_in_rank), 7/8 of them forwarded: inside = u·6.75093·7/8/160e9
     * = 0.0049225 s, the longer (per expert copy it would be u·8·7/8/160e9
     * = 0.0058333 s) */
    CHECK_NEAR(deepep_seconds(&hw, gb, 16, 1, 64, 8, 0), 0.0049225, 1e-7, "DeepEP EP 16 over 2 nodes: NVLink-bound");
    /* inside one node, 256 experts (32 a rank): a rank is missed with
     * C(224,8)/C(256,8) = 0.338168, R = 8·0.661832 = 5.29465 ranks a token,
     * 7/8 of them peers: u·5.29465·7/8 = 1e9·0.661832 bytes at 160 GB/s =
     * 0.0041364 s, where the plain all-to-all's 8 copies take 1/160 s */
    CHECK_NEAR(deepep_seconds(&hw, gb, 8, 1, 256, 8, 0), 0.0041364, 1e-7, "DeepEP inside a node: once a rank");
    CHECK_NEAR(deepep_seconds(&hw, gb, 8, 1, 256, 8, 0), 1e9 * (1.0 - miss) / 160e9, tol,
               "DeepEP inside a node: the plain bytes times R/k");
    /* one group rank a node: nothing to forward, the plain all-to-all */
    CHECK_NEAR(deepep_seconds(&hw, gb, 4, 8, 256, 8, 0), 1.0 / 45.0, tol, "DeepEP one rank a node: all over IB");

    /* a machine of one level: that level's bandwidth */
    hw.n_levels = 1;
    hw.levels[0].devices = (int64_t)1 << 40;
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 64, 1), 1.0 / 160.0, tol, "one level: its bandwidth");

    return check_done();
}
