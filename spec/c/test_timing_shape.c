/* test_timing_shape.c: a GEMM's time where it is memory bound (the
 * roofline) and where its output tiles leave SMs idle (tile and wave
 * quantization), a flash kernel's rate over short keys, and the ring
 * attention's sends its attention hides.
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

    /* Tile and wave quantization on 132 SMs with 128 x 256 tiles (H100's profile):
     * 512 x 4608 out (CP 16 at 8192 tokens, 405B's q/k/v over TP 4) is 4·18 = 72
     * tiles, one wave of 132: 72/132 = 6/11 of the SMs' time used */
    kernel_pricing g = {0.0, 132.0, 128.0, 256.0, 0.0, 0.0};
    CHECK_NEAR(gemm_wave_efficiency(&g, 512, 4608, 1), 6.0 / 11.0, tol, "72 tiles: one wave, 6/11 used");
    /* 8192 x 4096: 64·16 = 1024 tiles, 7.76 waves run as 8: 1024/1056 = 32/33 */
    CHECK_NEAR(gemm_wave_efficiency(&g, 8192, 4096, 1), 32.0 / 33.0, tol, "1024 tiles: 8 waves");
    /* 100 x 100: one tile of 128 x 256 holding 10000 of its 32768 outputs, one wave */
    CHECK_NEAR(gemm_wave_efficiency(&g, 100, 100, 1), 10000.0 / (132.0 * 32768.0), tol, "a partial tile");
    /* eight experts of 64 rows x 4096 in one grouped launch: half-full tiles, 8·16 = 128 of them, one wave */
    CHECK_NEAR(gemm_wave_efficiency(&g, 64, 4096, 8), 0.5 * 128.0 / 132.0, tol, "grouped: waves together");
    kernel_pricing none = {250.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    CHECK_NEAR(gemm_wave_efficiency(&none, 512, 4608, 1), 1.0, tol, "no SMs stated: not priced");
    /* 512 x 16384 by 16384 x 4608: 2·512·16384·4608 = 77309411328 FLOPs; forward at
     * 6/11: 5/6 of them more = 64424509440. Backward: the input's gradient (512 x 16384
     * out, 256 tiles, 2 waves: 32/33) and the weight's (16384 x 4608 out, 2304 tiles,
     * 18 waves of 132 = 2376: 32/33) take 2·(33/32) of the FLOPs, 1/16 more than twice
     * them: less twice the forward's excess, 77309411328·(1/16 − 5/3) = −124017180672 */
    gemm_excess_flops e = gemm_excess(&g, 512, 16384, 4608, 1, 2);
    CHECK_NEAR(e.forward, 64424509440.0, 1e-3, "forward: 5/6 of the FLOPs more");
    CHECK_NEAR(e.backward, -124017180672.0, 1e-3, "backward: its own waves, not twice the forward's");
    /* without waves the roofline alone, as gemm_roofline_excess, and the backward twice it */
    e = gemm_excess(&none, 256, 16384, 4608, 1, 2);
    CHECK_NEAR(e.forward, 1781006336.0, tol, "no waves: the roofline's excess");
    CHECK_NEAR(e.backward, 0.0, tol, "no waves: the backward twice the forward");

    /* A flash kernel over 512 keys (CP 16 at 8192 tokens) with knee 384 from 4096:
     * 512·(4096 + 384) / (4096·(512 + 384)) = 2293760 / 3670016 = 0.625 */
    kernel_pricing a = {0.0, 0.0, 0.0, 0.0, 384.0, 4096.0};
    CHECK_NEAR(attention_key_efficiency(&a, 512), 0.625, tol, "512 keys: 5/8 of the rate");
    CHECK_NEAR(attention_key_efficiency(&a, 4096), 1.0, tol, "from 4096 keys: the profile's rate");
    CHECK_NEAR(attention_key_efficiency(&a, 65536), 1.0, tol, "long keys: the profile's rate");
    CHECK_NEAR(attention_key_efficiency(&none, 512), 1.0, tol, "no knee stated: not priced");

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
