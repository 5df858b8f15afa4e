//! What a profiler needs on a board: its clock (the PLL), an on-chip event source, the report text
//! format, a UART transmitter, and the board top that wires them to the profiler.

pub mod clock;
pub mod event_source;
pub mod report_format;
pub mod top;
pub mod uart;
