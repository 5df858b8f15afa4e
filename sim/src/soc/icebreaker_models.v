// Simulation models of the iCE40 cells and the SPI flash of the iCEBreaker system for a
// cycle-based simulator: the subset of each that the system uses.

// SB_IO as the flash pins use it: PIN_TYPE 6'b1010_01, an output with a non-registered enable
// and a non-registered input.
module SB_IO (
  inout PACKAGE_PIN,
  input LATCH_INPUT_VALUE, input CLOCK_ENABLE, input INPUT_CLK, input OUTPUT_CLK,
  input OUTPUT_ENABLE, input D_OUT_0, input D_OUT_1,
  output D_IN_0, output D_IN_1
);
  parameter [5:0] PIN_TYPE = 6'b000000;
  parameter [0:0] PULLUP = 1'b0;
  parameter [0:0] NEG_TRIGGER = 1'b0;
  parameter IO_STANDARD = "SB_LVCMOS";
  initial if (PIN_TYPE != 6'b1010_01) $fatal(1, "SB_IO model: PIN_TYPE %b is not modelled", PIN_TYPE);
  assign PACKAGE_PIN = OUTPUT_ENABLE ? D_OUT_0 : 1'bz;
  assign D_IN_0 = PACKAGE_PIN;
  assign D_IN_1 = 1'b0;
endmodule

// SB_SPRAM256KA: 16K x 16 with nibble write masks, registered read (output unknown on a write,
// here 0), no sleep or power-off.
module SB_SPRAM256KA (
  input [13:0] ADDRESS, input [15:0] DATAIN, input [3:0] MASKWREN,
  input WREN, CHIPSELECT, CLOCK, STANDBY, SLEEP, POWEROFF,
  output reg [15:0] DATAOUT
);
  reg [15:0] mem [0:16383];
  always @(posedge CLOCK)
    if (CHIPSELECT) begin
      if (!WREN) DATAOUT <= mem[ADDRESS];
      else begin
        if (MASKWREN[0]) mem[ADDRESS][3:0] <= DATAIN[3:0];
        if (MASKWREN[1]) mem[ADDRESS][7:4] <= DATAIN[7:4];
        if (MASKWREN[2]) mem[ADDRESS][11:8] <= DATAIN[11:8];
        if (MASKWREN[3]) mem[ADDRESS][15:12] <= DATAIN[15:12];
        DATAOUT <= 16'h0;
      end
    end
endmodule

// The flash as spimemio drives it without its configuration register: single-bit SPI, release
// from power-down (0xab) and read (0x03) from firmware.hex; MISO driven while the clock is low,
// as PicoSoC's spiflash model drives it.
module spiflash (input csb, input clk, inout io0, inout io1, inout io2, inout io3);
  reg [7:0] memory [0:16*1024*1024-1];
  initial $readmemh("firmware.hex", memory);
  reg [7:0] buffer = 0, cmd = 0;
  reg [2:0] bits = 0;
  reg [2:0] bytes = 0;
  reg [23:0] addr = 0;
  reg powered_up = 0;
  wire [7:0] b = {buffer[6:0], io0};
  always @(posedge clk or posedge csb)
    if (csb) begin
      buffer <= 0; bits <= 0; bytes <= 0;
    end else begin
      bits <= bits + 1;
      buffer <= b;
      if (bits == 7) begin
        if (bytes != 7) bytes <= bytes + 1;
        if (bytes == 0) begin
          cmd <= b;
          if (b == 8'hab) powered_up <= 1;
          if (b == 8'hb9) powered_up <= 0;
        end else if (powered_up && cmd == 8'h03) begin
          if (bytes == 1) addr[23:16] <= b;
          if (bytes == 2) addr[15:8] <= b;
          if (bytes == 3) begin
            buffer <= memory[{addr[23:8], b}];
            addr <= {addr[23:8], b} + 1;
          end
          if (bytes >= 4) begin
            buffer <= memory[addr];
            addr <= addr + 1;
          end
        end
      end
    end
  assign io1 = csb ? 1'bz : buffer[7];
  assign io0 = 1'bz;
  assign io2 = 1'bz;
  assign io3 = 1'bz;
endmodule
