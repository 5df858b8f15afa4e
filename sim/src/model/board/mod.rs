//! Models of the board blocks (`hwprof_hdl::board`): event source, report text, UART, board top.

pub mod event_source;
pub mod report_format;
pub mod top;
pub mod uart;
