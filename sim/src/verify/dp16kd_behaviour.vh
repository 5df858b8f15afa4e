	// ---- hwprof: behaviour of the DP16KD, appended to the declaration in Yosys's ECP5 cell models,
	// which declare the cell's parameters and ports only. What synth_ecp5 relies on, per Lattice's
	// ECP5 memory usage guide (FPGA-TN-02204): 1024 words of 18 bits; a port of width 18 addresses a
	// word with AD[13:4] and writes its bytes DI[8:0] / DI[17:9] where AD0 / AD1 are high; width 9
	// addresses a byte (AD[13:3]); widths 4, 2, 1 address data bits inside the bytes (AD[13:2],
	// AD[13:1], AD[13:0]; the ninth bit of a byte is left out). Width 36 is the pseudo-dual-port
	// mode synth_ecp5 uses for wide memories: port A writes {DIB, DIA} at words 2j, 2j + 1
	// (j = ADA[13:5], bytes enabled by ADA[3:0]), port B reads them onto {DOB, DOA}. Per port, on the clock edge (CLKxMUX
	// "INV": falling) with CE high and CS equal to CSDECODE: a write stores DI and sets DO as
	// WRITEMODE says (NORMAL: unchanged, WRITETHROUGH: the new data, READBEFOREWRITE: the old data);
	// otherwise DO takes the addressed data. RST clears DO (RESETMODE SYNC: on the edge, ASYNC: at
	// once); REGMODE OUTREG adds an output register enabled by OCE.
	// Not given by the guide, so made visible rather than guessed: a port reading what the other
	// port writes on the same edge reads X in the bits written; both ports writing the same bits on
	// the same edge, and initial contents at widths below 9 (whose bit layout in INITVAL this model
	// does not know), stop the simulation.
	wire [17:0] hwprof_di_a = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
	wire [17:0] hwprof_di_b = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
	wire [13:0] hwprof_ad_a = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
	wire [13:0] hwprof_ad_b = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
	wire hwprof_clk_a = CLKAMUX == "INV" ? ~CLKA : CLKA;
	wire hwprof_clk_b = CLKBMUX == "INV" ? ~CLKB : CLKB;

	reg [17:0] hwprof_mem [0:1023];

	// An access touches word u0 and, at width 36, word u1 = u0 + 1.
	function [9:0] hwprof_u0(input integer width, input [13:0] ad);
		hwprof_u0 = width == 36 ? {ad[13:5], 1'b0} : ad[13:4];
	endfunction
	// The bits of word u0 a write of `width` changes (at width 36: of the low word).
	function [17:0] hwprof_wm0(input integer width, input [13:0] ad);
		case (width)
			36, 18: hwprof_wm0 = {{9{ad[1]}}, {9{ad[0]}}};
			9: hwprof_wm0 = 18'h1ff << (ad[3] * 9);
			4: hwprof_wm0 = 18'hf << (ad[3] * 9 + ad[2] * 4);
			2: hwprof_wm0 = 18'h3 << (ad[3] * 9 + ad[2:1] * 2);
			default: hwprof_wm0 = 18'h1 << (ad[3] * 9 + ad[2:0]);
		endcase
	endfunction
	function [17:0] hwprof_wm1(input integer width, input [13:0] ad);
		hwprof_wm1 = width == 36 ? {{9{ad[3]}}, {9{ad[2]}}} : 18'h0;
	endfunction
	// The bits of word u0 a read of `width` returns (widths 18 and 36 whole words).
	function [17:0] hwprof_rm0(input integer width, input [13:0] ad);
		hwprof_rm0 = width >= 18 ? 18'h3ffff : hwprof_wm0(width, ad);
	endfunction
	// DI spread to where a narrow port's data sits in the word.
	function [17:0] hwprof_place(input integer width, input [17:0] di);
		case (width)
			36, 18: hwprof_place = di;
			9: hwprof_place = {2{di[8:0]}};
			4: hwprof_place = {2{1'b0, {2{di[3:0]}}}};
			2: hwprof_place = {2{1'b0, {4{di[1:0]}}}};
			default: hwprof_place = {2{1'b0, {8{di[0]}}}};
		endcase
	endfunction
	// A narrow port's data from a word, in DO's low bits.
	function [17:0] hwprof_pick(input integer width, input [13:0] ad, input [17:0] word);
		case (width)
			36, 18: hwprof_pick = word;
			9: hwprof_pick = (word >> (ad[3] * 9)) & 18'h1ff;
			4: hwprof_pick = (word >> (ad[3] * 9 + ad[2] * 4)) & 18'hf;
			2: hwprof_pick = (word >> (ad[3] * 9 + ad[2:1] * 2)) & 18'h3;
			default: hwprof_pick = (word >> (ad[3] * 9 + ad[2:0])) & 18'h1;
		endcase
	endfunction
	function hwprof_selected(input [8*5-1:0] decode, input [2:0] cs);
		hwprof_selected = cs == {decode[16], decode[8], decode[0]};
	endfunction
	// The bits of word `u` that a write at (u0, wm0, wm1) changes.
	function [17:0] hwprof_hit(input [9:0] u, input [9:0] u0, input [17:0] wm0, input [17:0] wm1);
		hwprof_hit = (u == u0 ? wm0 : 18'h0) | (u == (u0 | 10'h1) ? wm1 : 18'h0);
	endfunction

	wire hwprof_on_a = CEA && hwprof_selected(CSDECODE_A, {CSA2, CSA1, CSA0});
	wire hwprof_on_b = CEB && hwprof_selected(CSDECODE_B, {CSB2, CSB1, CSB0});
	wire [9:0] hwprof_u0_a = hwprof_u0(DATA_WIDTH_A, hwprof_ad_a);
	wire [9:0] hwprof_u0_b = hwprof_u0(DATA_WIDTH_B, hwprof_ad_b);
	wire hwprof_w_a = hwprof_on_a && WEA;
	wire hwprof_w_b = hwprof_on_b && WEB;
	wire [17:0] hwprof_wm0_a = hwprof_w_a ? hwprof_wm0(DATA_WIDTH_A, hwprof_ad_a) : 18'h0;
	wire [17:0] hwprof_wm1_a = hwprof_w_a ? hwprof_wm1(DATA_WIDTH_A, hwprof_ad_a) : 18'h0;
	wire [17:0] hwprof_wm0_b = hwprof_w_b ? hwprof_wm0(DATA_WIDTH_B, hwprof_ad_b) : 18'h0;
	wire [17:0] hwprof_wm1_b = hwprof_w_b ? hwprof_wm1(DATA_WIDTH_B, hwprof_ad_b) : 18'h0;
	// Both clocks high at an edge of one: taken as the same edge (the other port's access counts).
	// Read from the ports, not from hwprof_clk_a/b: the other port's derived clock may not have
	// been updated yet when this port's edge runs.
	`define HWPROF_SAME_EDGE ((CLKAMUX == "INV" ? !CLKA : CLKA) && (CLKBMUX == "INV" ? !CLKB : CLKB))

	// Port outputs: q (DO, or at width 36 the high word) and q_lo (the low word at width 36).
	reg [17:0] hwprof_q_a, hwprof_q_b, hwprof_lo_b, hwprof_o_a, hwprof_o_b, hwprof_olo_b;
	wire hwprof_arst_a = RESETMODE == "ASYNC" && RSTA;
	wire hwprof_arst_b = RESETMODE == "ASYNC" && RSTB;

	always @(posedge hwprof_clk_a or posedge hwprof_arst_a) begin : hwprof_port_a
		reg [17:0] old0, old1, c0, c1;
		if (hwprof_arst_a || RSTA) begin
			hwprof_q_a <= 18'h0;
			hwprof_o_a <= 18'h0;
		end else begin
			if (OCEA) hwprof_o_a <= hwprof_q_a;
			if (hwprof_on_a) begin
				old0 = hwprof_mem[hwprof_u0_a];
				old1 = hwprof_mem[hwprof_u0_a | 10'h1];
				c0 = `HWPROF_SAME_EDGE ? hwprof_hit(hwprof_u0_a, hwprof_u0_b, hwprof_wm0_b, hwprof_wm1_b) : 18'h0;
				c1 = `HWPROF_SAME_EDGE && DATA_WIDTH_A == 36 ? hwprof_hit(hwprof_u0_a | 10'h1, hwprof_u0_b, hwprof_wm0_b, hwprof_wm1_b) : 18'h0;
				if (WEA) begin
					if (|(c0 & hwprof_wm0_a) || |(c1 & hwprof_wm1_a)) begin
						$display("DP16KD %m: both ports write the same bits of word %0d at %0t", hwprof_u0_a, $time);
						$finish(1);
					end
					if (DATA_WIDTH_A == 36) begin
						hwprof_mem[hwprof_u0_a] <= (old0 & ~hwprof_wm0_a) | (hwprof_di_a & hwprof_wm0_a);
						hwprof_mem[hwprof_u0_a | 10'h1] <= (old1 & ~hwprof_wm1_a) | (hwprof_di_b & hwprof_wm1_a);
					end else begin
						hwprof_mem[hwprof_u0_a] <= (old0 & ~hwprof_wm0_a) | (hwprof_place(DATA_WIDTH_A, hwprof_di_a) & hwprof_wm0_a);
						if (WRITEMODE_A == "WRITETHROUGH")
							hwprof_q_a <= hwprof_pick(DATA_WIDTH_A, hwprof_ad_a, (old0 & ~hwprof_wm0_a) | (hwprof_place(DATA_WIDTH_A, hwprof_di_a) & hwprof_wm0_a));
						else if (WRITEMODE_A == "READBEFOREWRITE")
							hwprof_q_a <= hwprof_pick(DATA_WIDTH_A, hwprof_ad_a, old0);
					end
				end else if (DATA_WIDTH_A != 36) begin
					hwprof_q_a <= hwprof_pick(DATA_WIDTH_A, hwprof_ad_a,
						old0 ^ ((c0 & hwprof_rm0(DATA_WIDTH_A, hwprof_ad_a)) & 18'bx));
				end
			end
		end
	end

	always @(posedge hwprof_clk_b or posedge hwprof_arst_b) begin : hwprof_port_b
		reg [17:0] old0, old1, c0, c1;
		if (hwprof_arst_b || RSTB) begin
			hwprof_q_b <= 18'h0;
			hwprof_lo_b <= 18'h0;
			hwprof_o_b <= 18'h0;
			hwprof_olo_b <= 18'h0;
		end else begin
			if (OCEB) begin
				hwprof_o_b <= hwprof_q_b;
				hwprof_olo_b <= hwprof_lo_b;
			end
			if (hwprof_on_b) begin
				old0 = hwprof_mem[hwprof_u0_b];
				old1 = hwprof_mem[hwprof_u0_b | 10'h1];
				c0 = `HWPROF_SAME_EDGE ? hwprof_hit(hwprof_u0_b, hwprof_u0_a, hwprof_wm0_a, hwprof_wm1_a) : 18'h0;
				c1 = `HWPROF_SAME_EDGE ? hwprof_hit(hwprof_u0_b | 10'h1, hwprof_u0_a, hwprof_wm0_a, hwprof_wm1_a) : 18'h0;
				if (WEB) begin
					if (DATA_WIDTH_B == 36) begin
						$display("DP16KD %m: port B writes at width 36 (not modelled) at %0t", $time);
						$finish(1);
					end
					hwprof_mem[hwprof_u0_b] <= (old0 & ~hwprof_wm0_b) | (hwprof_place(DATA_WIDTH_B, hwprof_di_b) & hwprof_wm0_b);
					if (WRITEMODE_B == "WRITETHROUGH")
						hwprof_q_b <= hwprof_pick(DATA_WIDTH_B, hwprof_ad_b, (old0 & ~hwprof_wm0_b) | (hwprof_place(DATA_WIDTH_B, hwprof_di_b) & hwprof_wm0_b));
					else if (WRITEMODE_B == "READBEFOREWRITE")
						hwprof_q_b <= hwprof_pick(DATA_WIDTH_B, hwprof_ad_b, old0);
				end else if (DATA_WIDTH_B == 36) begin
					hwprof_lo_b <= old0 ^ (c0 & 18'bx);
					hwprof_q_b <= old1 ^ (c1 & 18'bx);
				end else begin
					hwprof_q_b <= hwprof_pick(DATA_WIDTH_B, hwprof_ad_b,
						old0 ^ ((c0 & hwprof_rm0(DATA_WIDTH_B, hwprof_ad_b)) & 18'bx));
				end
			end
		end
	end
	`undef HWPROF_SAME_EDGE

	// At width 36 the read port B drives DOA with the low word.
	wire [17:0] hwprof_do_a = DATA_WIDTH_B == 36 ? (REGMODE_B == "OUTREG" ? hwprof_olo_b : hwprof_lo_b)
		: (REGMODE_A == "OUTREG" ? hwprof_o_a : hwprof_q_a);
	wire [17:0] hwprof_do_b = REGMODE_B == "OUTREG" ? hwprof_o_b : hwprof_q_b;
	assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = hwprof_do_a;
	assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = hwprof_do_b;

	function [319:0] hwprof_initval(input integer row);
		case (row)
			0: hwprof_initval = INITVAL_00;
			1: hwprof_initval = INITVAL_01;
			2: hwprof_initval = INITVAL_02;
			3: hwprof_initval = INITVAL_03;
			4: hwprof_initval = INITVAL_04;
			5: hwprof_initval = INITVAL_05;
			6: hwprof_initval = INITVAL_06;
			7: hwprof_initval = INITVAL_07;
			8: hwprof_initval = INITVAL_08;
			9: hwprof_initval = INITVAL_09;
			10: hwprof_initval = INITVAL_0A;
			11: hwprof_initval = INITVAL_0B;
			12: hwprof_initval = INITVAL_0C;
			13: hwprof_initval = INITVAL_0D;
			14: hwprof_initval = INITVAL_0E;
			15: hwprof_initval = INITVAL_0F;
			16: hwprof_initval = INITVAL_10;
			17: hwprof_initval = INITVAL_11;
			18: hwprof_initval = INITVAL_12;
			19: hwprof_initval = INITVAL_13;
			20: hwprof_initval = INITVAL_14;
			21: hwprof_initval = INITVAL_15;
			22: hwprof_initval = INITVAL_16;
			23: hwprof_initval = INITVAL_17;
			24: hwprof_initval = INITVAL_18;
			25: hwprof_initval = INITVAL_19;
			26: hwprof_initval = INITVAL_1A;
			27: hwprof_initval = INITVAL_1B;
			28: hwprof_initval = INITVAL_1C;
			29: hwprof_initval = INITVAL_1D;
			30: hwprof_initval = INITVAL_1E;
			31: hwprof_initval = INITVAL_1F;
			32: hwprof_initval = INITVAL_20;
			33: hwprof_initval = INITVAL_21;
			34: hwprof_initval = INITVAL_22;
			35: hwprof_initval = INITVAL_23;
			36: hwprof_initval = INITVAL_24;
			37: hwprof_initval = INITVAL_25;
			38: hwprof_initval = INITVAL_26;
			39: hwprof_initval = INITVAL_27;
			40: hwprof_initval = INITVAL_28;
			41: hwprof_initval = INITVAL_29;
			42: hwprof_initval = INITVAL_2A;
			43: hwprof_initval = INITVAL_2B;
			44: hwprof_initval = INITVAL_2C;
			45: hwprof_initval = INITVAL_2D;
			46: hwprof_initval = INITVAL_2E;
			47: hwprof_initval = INITVAL_2F;
			48: hwprof_initval = INITVAL_30;
			49: hwprof_initval = INITVAL_31;
			50: hwprof_initval = INITVAL_32;
			51: hwprof_initval = INITVAL_33;
			52: hwprof_initval = INITVAL_34;
			53: hwprof_initval = INITVAL_35;
			54: hwprof_initval = INITVAL_36;
			55: hwprof_initval = INITVAL_37;
			56: hwprof_initval = INITVAL_38;
			57: hwprof_initval = INITVAL_39;
			58: hwprof_initval = INITVAL_3A;
			59: hwprof_initval = INITVAL_3B;
			60: hwprof_initval = INITVAL_3C;
			61: hwprof_initval = INITVAL_3D;
			62: hwprof_initval = INITVAL_3E;
			63: hwprof_initval = INITVAL_3F;
		endcase
	endfunction
	initial begin : hwprof_init
		integer row, slot;
		reg [319:0] line;
		for (row = 0; row < 64; row = row + 1) begin
			line = hwprof_initval(row);
			if (line != 0 && (DATA_WIDTH_A < 9 || DATA_WIDTH_B < 9)) begin
				$display("DP16KD %m: initial contents at width %0d / %0d are not modelled", DATA_WIDTH_A, DATA_WIDTH_B);
				$finish(1);
			end
			for (slot = 0; slot < 16; slot = slot + 1)
				hwprof_mem[row * 16 + slot] = line[slot * 20 +: 18];
		end
		hwprof_q_a = 18'h0;
		hwprof_q_b = 18'h0;
		hwprof_lo_b = 18'h0;
		hwprof_o_a = 18'h0;
		hwprof_o_b = 18'h0;
		hwprof_olo_b = 18'h0;
	end
