// The bus readout of programs built with HWPROF_READOUT (`hwprof soc run --readout bus`): crt0.S
// calls hwprof_readout_start before main and hwprof_readout_finish after it. While main runs,
// the slaves' interrupt (readout.S) moves the report words into a buffer in RAM; after main, the
// profilers are disabled and flushed (the last, partial interval is reported too), drained until
// they fall quiet, and every word is printed on the console
// as `@@hwprof W <mode> <interval> <a> <b> <count> <last>` (hex), the printout `hwprof report`
// and the harness read. A slave that is absent reads 0 in the window (the board systems have one
// profiler, in one mode; a system without profilers has none): it is left alone.
#include <stdint.h>
#include "soc.h"
#include "hwprof_soc_readout.h"

#define REG(mode, off) HWPROF_SOC_READOUT_REG(HWPROF_READOUT_BASE + 0x100u * (mode), off)
#ifdef HWPROF_WRITER
// The report writer (hwprof_hdl::readout::writer) moves the words into the buffer by itself, on
// the clocks the CPU leaves the RAM: the program spends nothing on them until the buffer is full.
#define WRITER(off) (*(volatile uint32_t *)(uintptr_t)(HWPROF_WRITER + (off)))
#endif
// The buffer of words ({interval, a, b, count, flags} each) is the free RAM between link.ld's
// hwprof_buffer and hwprof_buffer_end; when it is full it is printed mid-run (slowly: the
// console).
#define EDGE_FLAG 0x100u

extern uint32_t hwprof_save[];
extern void hwprof_irq(void);
extern uint32_t hwprof_buffer[];
extern uint32_t hwprof_buffer_end[];
// Bit m: the slave of mode m (0 value, 1 edge) answers.
static unsigned present;

// hwprof_save's words 16 and 17: the buffer's write pointer and end (crt0.S, readout.S).
#define WP hwprof_save[16]
#define END hwprof_save[17]

// Runs before main, so its clocks count against the profiled program: constants only.
// HWPROF_IRQ_LEVEL (hwprof_sim::soc::system::irq_level) makes the interrupt come while the FIFO
// still has room for a whole report: a report that arrives before the handler runs never makes
// the profiler wait, which would stall the CPU that is to drain it.
void hwprof_readout_start(void)
{
	for (int m = 0; m < 2; m++)
		if (REG(m, HWPROF_SOC_READOUT_ID) == HWPROF_SOC_READOUT_ID_VALUE) {
			present |= 1u << m;
#ifdef HWPROF_WRITER
			// The slave's interrupt stays off: the writer's (buffer full) comes instead.
			REG(m, HWPROF_SOC_READOUT_CTRL) = HWPROF_SOC_READOUT_CTRL_ENABLE_MASK;
#else
			REG(m, HWPROF_SOC_READOUT_IRQ_LEVEL) = HWPROF_IRQ_LEVEL;
			REG(m, HWPROF_SOC_READOUT_CTRL) = HWPROF_SOC_READOUT_CTRL_ENABLE_MASK |
							  HWPROF_SOC_READOUT_CTRL_IRQ_ENABLE_MASK;
#endif
		}
	if (!present)
		return;
#ifdef HWPROF_WRITER
	WRITER(HWPROF_WRITER_END) = (uint32_t)(uintptr_t)hwprof_buffer_end;
	WRITER(HWPROF_WRITER_PTR) = (uint32_t)(uintptr_t)hwprof_buffer;
	WRITER(HWPROF_WRITER_CTRL) = HWPROF_WRITER_ENABLE;
#endif
#ifdef HWPROF_CPU_PICORV32
	// maskirq zero, t0: IRQs 3 (value) and 4 (edge) on.
	register uint32_t mask asm("t0") = ~0x18u;
	asm volatile(".word 0x0602e00b" : : "r"(mask));
#else
	// SERV: the slaves' interrupt is the machine timer interrupt.
	asm volatile(".option push\n\t.option arch, +zicsr\n\t"
		     "csrw mtvec, %0\n\tcsrs mie, %1\n\tcsrsi mstatus, 8\n\t.option pop"
		     :
		     : "r"(hwprof_irq), "r"(0x80));
#endif
}

static void put_word(const uint32_t *w)
{
	soc_puts("@@hwprof W ");
	soc_puts(w[4] & EDGE_FLAG ? "E " : "V ");
	for (int k = 0; k < 4; k++) {
		soc_put_hex(w[k]);
		soc_puts(" ");
	}
	soc_puts(w[4] & HWPROF_SOC_READOUT_REPORT_POP_LAST_MASK ? "1\n" : "0\n");
}

// Prints the buffer and empties it (from the handler when the buffer is full, and at the end).
// The profilers are disabled meanwhile: printing is slow, and its own events would otherwise fill
// the report FIFOs, make the profilers wait and so stall the CPU that is to drain them. Its events
// are not profiled (the harness feeds the models only the events the slaves took while enabled).
void hwprof_readout_spill(void)
{
	uint32_t ctrl[2];
	for (int m = 0; m < 2; m++)
		if (present & 1u << m) {
			ctrl[m] = REG(m, HWPROF_SOC_READOUT_CTRL);
			REG(m, HWPROF_SOC_READOUT_CTRL) = ctrl[m] & ~HWPROF_SOC_READOUT_CTRL_ENABLE_MASK;
		}
	for (uint32_t *w = hwprof_buffer; (uintptr_t)w < WP; w += 5)
		put_word(w);
	WP = (uint32_t)(uintptr_t)hwprof_buffer;
	for (int m = 0; m < 2; m++)
		if (present & 1u << m)
			REG(m, HWPROF_SOC_READOUT_CTRL) = ctrl[m];
}

void hwprof_readout_finish(void)
{
	if (!present)
		return;
#ifdef HWPROF_CPU_PICORV32
	register uint32_t mask asm("t0") = ~0u;
	asm volatile(".word 0x0602e00b" : : "r"(mask));
#else
	asm volatile(".option push\n\t.option arch, +zicsr\n\tcsrci mstatus, 8\n\t.option pop");
#endif
	// No event from here on, and the open interval ends now: what the profilers hold still comes
	// out, the last complete interval's report and the partial one's. The flush may wait for a
	// report to leave, so the FIFOs are drained meanwhile, until both are no longer pending and
	// have been quiet for a while.
	for (int m = 0; m < 2; m++)
		if (present & 1u << m)
			REG(m, HWPROF_SOC_READOUT_CTRL) = HWPROF_SOC_READOUT_CTRL_FLUSH_MASK;
#ifdef HWPROF_WRITER
	// The writer takes every word; a full buffer is printed and the writer started over.
	for (int quiet = 0; quiet < 256;) {
		int got = 0;
		for (int m = 0; m < 2; m++)
			if ((present & 1u << m) &&
			    (REG(m, HWPROF_SOC_READOUT_STATUS) &
			     (HWPROF_SOC_READOUT_STATUS_FLUSH_PENDING_MASK |
			      HWPROF_SOC_READOUT_STATUS_READY_MASK)))
				got = 1;
		uint32_t ctrl = WRITER(HWPROF_WRITER_CTRL);
		if (ctrl & HWPROF_WRITER_FULL) {
			WP = WRITER(HWPROF_WRITER_PTR);
			hwprof_readout_spill();
			WRITER(HWPROF_WRITER_PTR) = WP;
		}
		if (ctrl & (HWPROF_WRITER_FULL | HWPROF_WRITER_BUSY))
			got = 1;
		quiet = got ? 0 : quiet + 1;
	}
	WRITER(HWPROF_WRITER_CTRL) = 0;
	WP = WRITER(HWPROF_WRITER_PTR);
#else
	for (int quiet = 0; quiet < 256;) {
		int got = 0;
		for (int m = 0; m < 2; m++) {
			if (!(present & 1u << m))
				continue;
			if (REG(m, HWPROF_SOC_READOUT_STATUS) & HWPROF_SOC_READOUT_STATUS_FLUSH_PENDING_MASK)
				got = 1;
			hwprof_soc_readout_word r;
			while (hwprof_soc_readout_read(HWPROF_READOUT_BASE + 0x100u * m, &r)) {
				if (WP >= END)
					hwprof_readout_spill();
				uint32_t *w = (uint32_t *)(uintptr_t)WP;
				w[0] = r.interval;
				w[1] = (uint32_t)r.a;
				w[2] = (uint32_t)r.b;
				w[3] = r.count;
				w[4] = (r.last ? HWPROF_SOC_READOUT_REPORT_POP_LAST_MASK : 0) |
				       (m ? EDGE_FLAG : 0);
				WP += 20;
				got = 1;
			}
		}
		quiet = got ? 0 : quiet + 1;
	}
#endif
	hwprof_readout_spill();
}
