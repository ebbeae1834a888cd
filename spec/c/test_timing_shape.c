/* test_timing_shape.c: a GEMM's time where it is memory bound (the
 * roofline), and the ring attention's sends its attention hides.
 *
 * Every expected number is worked by hand below from the definitions:
 * a GEMM of m x k by k x n does 2mkn FLOPs and moves bc·(mk + kn + mn)
 * bytes; at `ridge` FLOPs a byte its bytes take what ridge·bytes FLOPs
 * take. Ring attention of cp blocks hides its sends behind cp − 1 of
 * the cp blocks' attention (forward, backward twice, rerun). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/timing.h"

int main(void)
{
    const double ridge = 250.0, tol = 1e-9;

    /* 256 rows (CP 32 at 8192 tokens) through 16384 x 4608 (Llama 3.1
     * 405B's q/k/v projection over TP 4): 2·256·16384·4608 = 38654705664
     * FLOPs; 2·(256·16384 + 16384·4608 + 256·4608) = 161742848 bytes, which
     * take 250·161742848 = 40435712000 FLOPs' time: 1781006336 more */
    CHECK_NEAR(gemm_roofline_excess(256, 16384, 4608, 2, ridge), 1781006336.0, tol, "256 rows: memory bound");
    /* 8192 rows: 2·8192·16384·4608 = 1.236950581248e12 FLOPs against
     * 250·2·(8192·16384 + 16384·4608 + 8192·4608) = 1.23731968e11: compute bound */
    CHECK_NEAR(gemm_roofline_excess(8192, 16384, 4608, 2, ridge), 0.0, tol, "8192 rows: compute bound");
    /* one row through 4096 x 4096 (a matrix-vector product): 33554432 FLOPs,
     * 2·(4096 + 16777216 + 4096) = 33570816 bytes = 8392704000 FLOPs' time */
    CHECK_NEAR(gemm_roofline_excess(1, 4096, 4096, 2, ridge), 8392704000.0 - 33554432.0, tol, "a GEMV: its bytes");
    CHECK_NEAR(gemm_roofline_excess(256, 16384, 4608, 2, 0.0), 0.0, tol, "no ridge known: none");

    hardware_t hw;
    memset(&hw, 0, sizeof hw);
    hw.sustained_tflops = 600;
    hw.attention_tflops = 400;
    hw.overlap_cp = 0.5;
    run_t r;
    memset(&r, 0, sizeof r);
    r.cp = 4;
    r.cp_algo = CP_RING;
    stage_work w;
    memset(&w, 0, sizeof w);
    /* 1e12 forward attention FLOPs at 400 TFLOP/s: 2.5 ms forward, 7.5 ms
     * with the backward's twice; 3 of the 4 blocks hide 5.625 ms of sends */
    w.forward_attention_flops = 1e12;
    CHECK_NEAR(cp_exposed_seconds(&w, &r, &hw, 0.020), 0.020 - 0.005625, tol, "20 ms of sends: 14.375 ms exposed");
    /* 8 ms of sends: 2.375 ms left, below the half the runtime leaves exposed (4 ms) */
    CHECK_NEAR(cp_exposed_seconds(&w, &r, &hw, 0.008), 0.004, tol, "8 ms of sends: the runtime's half");
    /* a rerun of the forward's attention (1e12 FLOPs more): 10 ms of
     * attention, 7.5 ms hidden, 12.5 ms of 20 exposed */
    w.recompute_attention_flops = 1e12;
    CHECK_NEAR(cp_exposed_seconds(&w, &r, &hw, 0.020), 0.0125, tol, "a recompute hides more");
    /* Ulysses' all-to-alls are not ring sends: the runtime's share alone */
    r.cp_algo = CP_ULYSSES;
    CHECK_NEAR(cp_exposed_seconds(&w, &r, &hw, 0.020), 0.010, tol, "Ulysses: the share");
    /* a runtime that overlaps none exposes all */
    r.cp_algo = CP_RING;
    hw.overlap_cp = 0;
    CHECK_NEAR(cp_exposed_seconds(&w, &r, &hw, 0.020), 0.020, tol, "no overlap: all of it");

    return check_done();
}
