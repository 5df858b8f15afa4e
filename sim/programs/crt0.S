/* Start-up of every program on hwprof's PicoRV32 system: stack, zeroed .bss, main(), then the
   exit code on the exit port and ebreak, which traps the CPU and ends the simulation. */
	.section .text.start
	.global _start
_start:
	la sp, __stack_top
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sw zero, 0(t0)
	addi t0, t0, 4
	j 1b
2:	call main
	li t0, 0x10000004
	sw a0, 0(t0)
	ebreak

/* The hard_* helpers of the PicoRV32 firmware's multest: one M-extension instruction each. */
	.text
	.global hard_mul, hard_mulh, hard_mulhsu, hard_mulhu, hard_div, hard_divu, hard_rem, hard_remu
hard_mul:	mul a0, a0, a1
	ret
hard_mulh:	mulh a0, a0, a1
	ret
hard_mulhsu:	mulhsu a0, a0, a1
	ret
hard_mulhu:	mulhu a0, a0, a1
	ret
hard_div:	div a0, a0, a1
	ret
hard_divu:	divu a0, a0, a1
	ret
hard_rem:	rem a0, a0, a1
	ret
hard_remu:	remu a0, a0, a1
	ret
