/* The bus readout's interrupt handler (programs built with HWPROF_READOUT): drains the report
   FIFOs of both profilers' Wishbone slaves (value mode at HWPROF_READOUT_BASE, edge mode 0x100
   above) into the buffer readout.c prints after main returns. The interrupt comes at the slaves'
   IRQ_LEVEL watermark, so one entry drains many words; the handler saves five registers in
   hwprof_save (crt0.S, addressed from x0) and needs no stack. A full buffer is printed from here
   (hwprof_readout_spill): slow, but nothing is lost. HWPROF_REG_<NAME>: the register offsets,
   from the register map. */
#define SAVE(n) %lo(hwprof_save + (n))(zero)
#define WP 64
#define END 68

/* One slave at \base: while STATUS.READY, a word {interval, a, b, count, REPORT_POP | flag} into
   the buffer at t2 (end t3); \flag tells the modes apart (0x100: edge). */
.macro DRAIN_SLAVE base, flag
	li t0, \base
	li t4, \flag
.Lnext\@:
	lw t1, HWPROF_REG_STATUS(t0)
	andi t1, t1, 1
	beqz t1, .Ldone\@
	bltu t2, t3, .Lroom\@
	call_spill
.Lroom\@:
	lw t1, HWPROF_REG_REPORT_INTERVAL(t0)
	sw t1, 0(t2)
	lw t1, HWPROF_REG_REPORT_A_LO(t0)
	sw t1, 4(t2)
	lw t1, HWPROF_REG_REPORT_B_LO(t0)
	sw t1, 8(t2)
	lw t1, HWPROF_REG_REPORT_COUNT(t0)
	sw t1, 12(t2)
	lw t1, HWPROF_REG_REPORT_POP(t0)
	or t1, t1, t4
	sw t1, 16(t2)
	addi t2, t2, 20
	j .Lnext\@
.Ldone\@:
.endm

/* The buffer is full: print it with the caller-saved registers kept (the interrupted code's
   stack is below its sp, which the handler may use). */
.macro call_spill
	sw t2, SAVE(WP)
	sw t0, SAVE(72)
	sw t4, SAVE(76)
	sw ra, SAVE(20)
	sw t5, SAVE(24)
	sw t6, SAVE(28)
	sw a0, SAVE(32)
	sw a1, SAVE(36)
	sw a2, SAVE(40)
	sw a3, SAVE(44)
	sw a4, SAVE(48)
	sw a5, SAVE(52)
	sw a6, SAVE(56)
	sw a7, SAVE(60)
	call hwprof_readout_spill
	lw ra, SAVE(20)
	lw t5, SAVE(24)
	lw t6, SAVE(28)
	lw a0, SAVE(32)
	lw a1, SAVE(36)
	lw a2, SAVE(40)
	lw a3, SAVE(44)
	lw a4, SAVE(48)
	lw a5, SAVE(52)
	lw a6, SAVE(56)
	lw a7, SAVE(60)
	lw t0, SAVE(72)
	lw t4, SAVE(76)
	lw t2, SAVE(WP)
	lw t3, SAVE(END)
.endm

	.text
	.balign 4
	.global hwprof_irq
hwprof_irq:
	sw t0, SAVE(0)
	sw t1, SAVE(4)
	sw t2, SAVE(8)
	sw t3, SAVE(12)
	sw t4, SAVE(16)
#ifdef HWPROF_WRITER
	/* The report writer filled the buffer and stopped: print it, then start it over at the
	   buffer's start (writing PTR clears FULL, which is the interrupt). */
	li t0, HWPROF_WRITER
	lw t2, HWPROF_WRITER_PTR(t0)
	call_spill
	li t0, HWPROF_WRITER
	sw t2, HWPROF_WRITER_PTR(t0)
#else
	lw t2, SAVE(WP)
	lw t3, SAVE(END)
	DRAIN_SLAVE HWPROF_READOUT_BASE, 0
	DRAIN_SLAVE HWPROF_READOUT_BASE + 0x100, 0x100
	sw t2, SAVE(WP)
#endif
	lw t0, SAVE(0)
	lw t1, SAVE(4)
	lw t2, SAVE(8)
	lw t3, SAVE(12)
	lw t4, SAVE(16)
#ifdef HWPROF_CPU_PICORV32
	.word 0x0400000b /* retirq */
#else
	mret
#endif
