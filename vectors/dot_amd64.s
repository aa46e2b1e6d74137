//go:build amd64 && !purego

#include "textflag.h"

// func dotI16I8AVX2(q *int16, v *int8, n int) int32
//
// Returns sum(q[i] * v[i]) for i < n, n a multiple of 16. The int8 codes are
// sign-extended to int16 and multiplied pairwise with VPMADDWD; with codes in
// [-127, 127] no intermediate overflows.
TEXT ·dotI16I8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop32:
	CMPQ CX, $32
	JL   tail16
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  (SI), Y2, Y2
	VPMADDWD  32(SI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $32, CX
	JMP       loop32

tail16:
	CMPQ CX, $16
	JL   done
	VPMOVSXBW (DI), Y2
	VPMADDWD  (SI), Y2, Y2
	VPADDD    Y2, Y0, Y0

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET
