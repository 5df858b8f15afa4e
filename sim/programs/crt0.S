/* Start-up of every program on hwprof's PicoRV32 system: stack, zeroed .bss, main(), then the
   exit code on the exit port and ebreak, which traps the CPU and ends the simulation. */
	.section .text.start
	.global _start
_start:
#ifdef HWPROF_READOUT
	j 1f
	/* PicoRV32's interrupt vector (PROGADDR_IRQ); SERV's mtvec points at hwprof_irq itself. */
	.balign 16
	j hwprof_irq
	/* The interrupt handler's save area, addressed from x0 (it must lie below 2 KiB). */
	.balign 4
	.global hwprof_save
	.type hwprof_save, @object
	.size hwprof_save, 96
hwprof_save:
	.space 64
	/* Words 16 and 17: the readout buffer's write pointer and end (readout.S). */
	.word hwprof_buffer
	.word hwprof_buffer_end
	.space 24
	/* Named, so that the start-up code's addresses are not taken for the save area's. */
	.type _reset, @function
_reset:
1:
#endif
	/* Registers start undefined in hardware (x in Icarus, 0 in Verilator); main's prologue saves
	   them and its epilogue loads them back, so they are zeroed for one retire stream everywhere. */
	li x1, 0
	li x2, 0
	li x3, 0
	li x4, 0
	li x5, 0
	li x6, 0
	li x7, 0
	li x8, 0
	li x9, 0
	li x10, 0
	li x11, 0
	li x12, 0
	li x13, 0
	li x14, 0
	li x15, 0
	li x16, 0
	li x17, 0
	li x18, 0
	li x19, 0
	li x20, 0
	li x21, 0
	li x22, 0
	li x23, 0
	li x24, 0
	li x25, 0
	li x26, 0
	li x27, 0
	li x28, 0
	li x29, 0
	li x30, 0
	li x31, 0
	la sp, __stack_top
#ifdef HWPROF_READOUT
	/* The slaves take events from reset, and nothing drains them before hwprof_readout_start:
	   the start-up code's own (zeroing a large .bss, thousands in edge mode) would fill their
	   FIFOs and stall the CPU for good. Off until then (an absent slave ignores the store). */
	li t0, HWPROF_READOUT_BASE
	sw zero, HWPROF_REG_CTRL(t0)
	sw zero, HWPROF_REG_CTRL + 0x100(t0)
#endif
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sw zero, 0(t0)
	addi t0, t0, 4
	j 1b
#ifdef HWPROF_READOUT
2:	call hwprof_readout_start
	call main
	/* main's cycles end here; then the reports are drained and printed (readout.c). */
	li t0, HWPROF_MAIN_END
	sw a0, 0(t0)
	mv s0, a0
	call hwprof_readout_finish
	mv a0, s0
#else
2:	call main
#endif
	li t0, 0x10000004
	sw a0, 0(t0)
	ebreak

/* The hard_* helpers of the PicoRV32 firmware's multest: one M-extension instruction each (only
   when building for a CPU with the M extension). */
#ifdef __riscv_mul
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
#endif
