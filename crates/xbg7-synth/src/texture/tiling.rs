//! The Xenos tiled layout's block order (UModel's single-expression `GetTiledOffset`).

/// Xenos tiled block index of block `(x, y)` in a surface `width` blocks wide (UModel's
/// `GetTiledOffset`: the byte-offset expression, shifted back to blocks).
pub fn tiled_block_index(x: u32, y: u32, width: u32, log_bpb: u32) -> u32 {
    let aligned = (width + 31) & !31;
    let macro_ = ((x >> 5) + (y >> 5) * (aligned >> 5)) << (log_bpb + 7);
    let micro = ((x & 7) + ((y & 0xE) << 2)) << log_bpb;
    let offset = macro_ + ((micro & !0xF) << 1) + (micro & 0xF) + ((y & 1) << 4);
    (((offset & !0x1FF) << 3)
        + ((y & 16) << 7)
        + ((offset & 0x1C0) << 2)
        + (((((y & 8) >> 2) + (x >> 3)) & 3) << 6)
        + (offset & 0x3F))
        >> log_bpb
}
