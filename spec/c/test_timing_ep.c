/* test_timing_ep.c: the expert all-to-all's time over a machine of nodes.
 *
 * The machine is the H800 profile's: 8 devices a node at 160 GB/s each way
 * (NVLink 400 GB/s both ways x 0.8), 45 GB/s between nodes (400 Gb/s IB x
 * 0.9). A rank sends 1 GB (1e9 bytes) in all, 1/(ep − 1) of it to each peer;
 * the expected seconds are worked by hand below from that split. */
#include <stdlib.h>

#include "check.h"
#include "core/timing.h"

int main(void)
{
    hardware_t hw;
    memset(&hw, 0, sizeof hw);
    hw.n_levels = 2;
    hw.levels[0].devices = 8;
    hw.levels[0].gbps = 160;
    hw.levels[1].devices = (int64_t)1 << 40;
    hw.levels[1].gbps = 45;
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
    /* a machine of one level: that level's bandwidth */
    hw.n_levels = 1;
    hw.levels[0].devices = (int64_t)1 << 40;
    CHECK_NEAR(ep_all_to_all_seconds(&hw, gb, 64, 1), 1.0 / 160.0, tol, "one level: its bandwidth");

    return check_done();
}
