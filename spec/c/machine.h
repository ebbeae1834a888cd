/* machine.h: the two-level machine the timing tests price on: nodes of 8
 * devices joined by NVLink at node_gbps a device, every device beyond its
 * node over the network at net_gbps a device (one level spanning any
 * count). The rest of the profile is zero: only the links are read. */
#ifndef NDLUA_SPEC_MACHINE_H
#define NDLUA_SPEC_MACHINE_H

#include <stdint.h>
#include <string.h>

#include "core/timing.h"

static hardware_t machine_two_levels(double node_gbps, double net_gbps)
{
    hardware_t hw;
    memset(&hw, 0, sizeof hw);
    hw.n_levels = 2;
    hw.levels[0].devices = 8;
    hw.levels[0].gbps = node_gbps;
    hw.levels[1].devices = (int64_t)1 << 40;
    hw.levels[1].gbps = net_gbps;
    return hw;
}

#endif
