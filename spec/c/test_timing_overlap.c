/* test_timing_overlap.c: what compute hides of the DP collectives.
 *
 * group_gbps: the H100 profile's machine, 8 devices a node at 360 GB/s,
 * 45 GB/s a device between nodes (400 Gb/s IB x 0.9). NCCL runs a
 * collective over nodes as channels that cross the node through different
 * NICs (NVIDIA/nccl issues 601, 1277), so a group with q members in a node
 * reaches q x 45 GB/s, at most the node's 360 GB/s.
 * exposed_seconds: u units, comm/u of collective per unit behind compute/u
 * of the unit before it (FSDP2's one-unit prefetch); the expected values
 * are worked by hand from the two-stage pipeline
 *   comm/u + (u - 1)·max(comm, compute)/u + compute/u
 * minus the compute and the edge comm/u. */
#include "check.h"
#include "core/timing.h"
#include "machine.h"

int main(void)
{
    hardware_t hw = machine_two_levels(360, 45);
    const double tol = 1e-12;

    /* inside a node: the node's links */
    CHECK_NEAR(group_gbps(&hw, 8, 1), 360.0, tol, "FSDP 8 in a node: NVLink 360 GB/s");
    CHECK_NEAR(group_gbps(&hw, 4, 2), 360.0, tol, "4 ranks TP 2 apart in a node: NVLink");
    /* FSDP 64 over 8 nodes, 8 members a node: 8 NICs, 8 x 45 = 360 GB/s */
    CHECK_NEAR(group_gbps(&hw, 64, 1), 360.0, tol, "FSDP 64 over 8 nodes: 8 NICs a node, 360 GB/s");
    /* FSDP 32 with TP 2 (stride 2): 4 members a node, 4 x 45 = 180 GB/s */
    CHECK_NEAR(group_gbps(&hw, 32, 2), 180.0, tol, "FSDP 32 over TP 2: 4 NICs a node, 180 GB/s");
    /* DP 16 over TP 8 (stride 8): one member a node, one NIC: 45 GB/s */
    CHECK_NEAR(group_gbps(&hw, 16, 8), 45.0, tol, "DP 16 over TP 8: one NIC a node, 45 GB/s");
    /* a node's links below 8 NICs' worth cap it: 200 GB/s NVLink, 8 x 45 = 360 -> 200 */
    hw.levels[0].gbps = 200;
    CHECK_NEAR(group_gbps(&hw, 64, 1), 200.0, tol, "capped by the node's 200 GB/s");
    hw.levels[0].gbps = 360;

    /* compute outlasts the collectives: all hidden beyond the edge */
    CHECK_NEAR(exposed_seconds(0.5, 1.0, 10), 0.0, tol, "comm 0.5 s under compute 1.0 s: none exposed");
    /* comm 2 s over compute 1 s in 10 units: 9 units of 0.2 s behind 0.1 s,
     * each 0.1 s exposed: 0.9 s (the 10th unit's edge, 0.2 s, is the caller's) */
    CHECK_NEAR(exposed_seconds(2.0, 1.0, 10), 0.9, tol, "comm 2 s, compute 1 s, 10 units: 0.9 s");
    /* one unit: nothing to hide behind beyond its edge */
    CHECK_NEAR(exposed_seconds(2.0, 1.0, 1), 0.0, tol, "one unit: only the edge");
    /* fewer than one unit is one unit */
    CHECK_NEAR(exposed_seconds(2.0, 1.0, 0), 0.0, tol, "no units: one unit");
    /* 61 units, comm 3.05 s, compute 0.61 s: 60 x (0.05 - 0.01) = 2.4 s */
    CHECK_NEAR(exposed_seconds(3.05, 0.61, 61), 2.4, 1e-12, "61 units: 2.4 s");
    return check_done();
}
