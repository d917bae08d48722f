/*
 * gpu_kernels_ptx.h: PTX for the gpu suite's kernels, generated once with
 *   nvcc -ptx -arch=compute_75 from this source:
 *
 *   extern "C" __global__ void mrctx_spin(unsigned long long ns);
 *     busy-waits on %globaltimer for `ns` nanoseconds (a slow kernel);
 *   extern "C" __global__ void mrctx_fill(unsigned char *p,
 *                                         unsigned long long n,
 *                                         unsigned char v);
 *     grid-stride p[i] = v.
 *
 * Loaded with cuModuleLoadData, so the tests need no nvcc to build.
 */
#ifndef MRCTX_GPU_KERNELS_PTX_H
#define MRCTX_GPU_KERNELS_PTX_H
static const char gpu_kernels_ptx[] = ".version 9.0\n"
                                      ".target sm_75\n"
                                      ".address_size 64\n"
                                      ".visible .entry mrctx_spin(\n"
                                      "	.param .u64 mrctx_spin_param_0\n"
                                      ")\n"
                                      "{\n"
                                      "	.reg .pred 	%p<3>;\n"
                                      "	.reg .b64 	%rd<6>;\n"
                                      "	ld.param.u64 	%rd2, [mrctx_spin_param_0];\n"
                                      "	mov.u64 %rd3, %globaltimer;\n"
                                      "	setp.eq.s64 	%p1, %rd2, 0;\n"
                                      "	@%p1 bra 	$L__BB0_2;\n"
                                      "$L__BB0_1:\n"
                                      "	mov.u64 %rd4, %globaltimer;\n"
                                      "	sub.s64 	%rd5, %rd4, %rd3;\n"
                                      "	setp.lt.u64 	%p2, %rd5, %rd2;\n"
                                      "	@%p2 bra 	$L__BB0_1;\n"
                                      "$L__BB0_2:\n"
                                      "	ret;\n"
                                      "}\n"
                                      ".visible .entry mrctx_fill(\n"
                                      "	.param .u64 mrctx_fill_param_0,\n"
                                      "	.param .u64 mrctx_fill_param_1,\n"
                                      "	.param .u8 mrctx_fill_param_2\n"
                                      ")\n"
                                      "{\n"
                                      "	.reg .pred 	%p<3>;\n"
                                      "	.reg .b16 	%rs<2>;\n"
                                      "	.reg .b32 	%r<5>;\n"
                                      "	.reg .b64 	%rd<14>;\n"
                                      "	ld.param.u8 	%rs1, [mrctx_fill_param_2];\n"
                                      "	ld.param.u64 	%rd7, [mrctx_fill_param_0];\n"
                                      "	ld.param.u64 	%rd8, [mrctx_fill_param_1];\n"
                                      "	mov.u32 	%r1, %ctaid.x;\n"
                                      "	mov.u32 	%r2, %ntid.x;\n"
                                      "	cvt.u64.u32 	%rd1, %r2;\n"
                                      "	mul.wide.u32 	%rd9, %r1, %r2;\n"
                                      "	mov.u32 	%r3, %tid.x;\n"
                                      "	cvt.u64.u32 	%rd10, %r3;\n"
                                      "	add.s64 	%rd13, %rd9, %rd10;\n"
                                      "	setp.ge.u64 	%p1, %rd13, %rd8;\n"
                                      "	@%p1 bra 	$L__BB1_3;\n"
                                      "	mov.u32 	%r4, %nctaid.x;\n"
                                      "	cvt.u64.u32 	%rd11, %r4;\n"
                                      "	mul.lo.s64 	%rd3, %rd11, %rd1;\n"
                                      "	cvta.to.global.u64 	%rd4, %rd7;\n"
                                      "$L__BB1_2:\n"
                                      "	add.s64 	%rd12, %rd4, %rd13;\n"
                                      "	st.global.u8 	[%rd12], %rs1;\n"
                                      "	add.s64 	%rd13, %rd13, %rd3;\n"
                                      "	setp.lt.u64 	%p2, %rd13, %rd8;\n"
                                      "	@%p2 bra 	$L__BB1_2;\n"
                                      "$L__BB1_3:\n"
                                      "	ret;\n"
                                      "}\n";
#endif
