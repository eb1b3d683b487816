//! Test meshes shared by the rasterizer tests.

use xbg7::mesh::Mesh;

/// Axis-aligned box `[lo, hi]` as 12 triangles, no normals (face normals are used).
pub fn cuboid(lo: [f32; 3], hi: [f32; 3]) -> Mesh {
    let mut p = Vec::new();
    for i in 0..8u32 {
        p.push([
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]);
    }
    let quads = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let mut idx = Vec::new();
    for q in quads {
        idx.extend_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
    }
    Mesh::single(p, None, idx)
}
