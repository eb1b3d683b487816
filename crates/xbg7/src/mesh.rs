//! Decoded geometry: the in-memory mesh every decoder produces and every writer consumes.
//!
//! A [`Mesh`] is always in the *file's own frame* (values exactly as decoded from the
//! bytes, no axis flip); coordinate conversion happens only in the glTF writer. The
//! canonical [`Mesh::digest`] is the identity used by the ground truth, the manifest and
//! `diff`: two meshes with the same digest are the same geometry to the bit.

/// One triangle-list primitive: a contiguous range of [`Mesh::indices`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Primitive {
    /// First index (not triangle) of this primitive in [`Mesh::indices`].
    pub first_index: u32,
    /// Number of indices (a multiple of 3).
    pub index_count: u32,
    /// Material name, as found in the descriptor (not part of the digest).
    pub material: Option<String>,
}

/// Decoded geometry of one XBG7 resource (all its sub-meshes), in the file's frame.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    /// Present when the declaration has a NORMAL element (xyz as decoded, not renormalised).
    pub normals: Option<Vec<[f32; 3]>>,
    /// One entry per TEXCOORD usage index present (set 0, 1, ... in usage-index order).
    pub texcoords: Vec<Vec<[f32; 2]>>,
    /// COLOR usage index 0 as RGBA in [0, 1].
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangle list; every index < `positions.len()`.
    pub indices: Vec<u32>,
    /// At least one primitive; together they cover `indices` exactly, in order.
    pub primitives: Vec<Primitive>,
}

impl Mesh {
    /// Keeps the vertices `keep` marks (one flag per vertex), in order, and renumbers the
    /// indices; every index must name a kept vertex.
    pub fn keep_vertices(&mut self, keep: &[bool]) {
        let mut new_index = vec![u32::MAX; keep.len()];
        let mut next = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                new_index[i] = next;
                next += 1;
            }
        }
        fn filter<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            let mut k = keep.iter();
            v.retain(|_| *k.next().unwrap_or(&true));
        }
        filter(&mut self.positions, keep);
        if let Some(n) = &mut self.normals {
            filter(n, keep);
        }
        for t in &mut self.texcoords {
            filter(t, keep);
        }
        if let Some(c) = &mut self.colors {
            filter(c, keep);
        }
        for i in &mut self.indices {
            *i = new_index.get(*i as usize).copied().unwrap_or(u32::MAX);
        }
    }

    /// A mesh of one primitive (no material) over all of `indices`.
    pub fn single(positions: Vec<[f32; 3]>, normals: Option<Vec<[f32; 3]>>, indices: Vec<u32>) -> Mesh {
        let index_count = indices.len() as u32;
        Mesh {
            positions,
            normals,
            indices,
            primitives: vec![Primitive {
                first_index: 0,
                index_count,
                material: None,
            }],
            ..Default::default()
        }
    }

    /// The same geometry as one primitive over all of `indices` (the first primitive's
    /// material): what is emitted when the records' split of a shared index buffer is
    /// undecidable.
    pub fn unsplit(mut self) -> Mesh {
        let material = self.primitives.first().and_then(|p| p.material.clone());
        self.primitives = vec![Primitive {
            first_index: 0,
            index_count: self.indices.len() as u32,
            material,
        }];
        self
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Axis-aligned bounds `(min, max)` of the positions; `None` for an empty mesh.
    pub fn bbox(&self) -> Option<([f32; 3], [f32; 3])> {
        bbox_of(&self.positions)
    }

    /// Canonical content digest (BLAKE3, lowercase hex) over the geometry: positions,
    /// normals, texcoords, colours, indices and primitive ranges, as little-endian bit
    /// patterns with presence tags. Material names are not part of the digest.
    pub fn digest(&self) -> String {
        // The bytes are staged and hashed in large updates: BLAKE3 over the same byte
        // sequence gives the same digest, and 4-byte updates made hashing a seventh of
        // the whole export's time.
        let mut h = Staged {
            hasher: blake3::Hasher::new(),
            buf: Vec::with_capacity(STAGE_BYTES),
        };
        h.hasher.update(b"xbg7-export.mesh/1");
        let put_u32 = |h: &mut Staged, v: u32| h.put(&v.to_le_bytes());
        put_u32(&mut h, self.positions.len() as u32);
        for p in &self.positions {
            for c in p {
                put_u32(&mut h, c.to_bits());
            }
        }
        match &self.normals {
            None => put_u32(&mut h, 0),
            Some(ns) => {
                put_u32(&mut h, 1);
                for n in ns {
                    for c in n {
                        put_u32(&mut h, c.to_bits());
                    }
                }
            }
        }
        put_u32(&mut h, self.texcoords.len() as u32);
        for set in &self.texcoords {
            for t in set {
                for c in t {
                    put_u32(&mut h, c.to_bits());
                }
            }
        }
        match &self.colors {
            None => put_u32(&mut h, 0),
            Some(cs) => {
                put_u32(&mut h, 1);
                for col in cs {
                    for c in col {
                        put_u32(&mut h, c.to_bits());
                    }
                }
            }
        }
        put_u32(&mut h, self.indices.len() as u32);
        for &i in &self.indices {
            put_u32(&mut h, i);
        }
        put_u32(&mut h, self.primitives.len() as u32);
        for p in &self.primitives {
            put_u32(&mut h, p.first_index);
            put_u32(&mut h, p.index_count);
        }
        h.finish().to_hex().to_string()
    }
}

/// Bytes staged before one BLAKE3 update in [`Mesh::digest`].
const STAGE_BYTES: usize = 64 * 1024;

/// A BLAKE3 hasher fed through a staging buffer.
struct Staged {
    hasher: blake3::Hasher,
    buf: Vec<u8>,
}

impl Staged {
    fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > STAGE_BYTES {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
        self.buf.extend_from_slice(bytes);
    }

    fn finish(mut self) -> blake3::Hash {
        self.hasher.update(&self.buf);
        self.hasher.finalize()
    }
}

/// Axis-aligned bounds of a point set; `None` when empty.
pub fn bbox_of(points: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
    let first = *points.first()?;
    let mut lo = first;
    let mut hi = first;
    for p in &points[1..] {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    Some((lo, hi))
}

/// The cross product `a × b`: a triangle's (area-weighted) face normal is
/// `(p1 − p0) × (p2 − p0)`. The one copy the gates, the rasterizer and the glTF writer use.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> Mesh {
        Mesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            indices: vec![0, 1, 2],
            primitives: vec![Primitive {
                first_index: 0,
                index_count: 3,
                material: None,
            }],
            ..Default::default()
        }
    }

    /// The digest's byte sequence written out in one piece (no staging).
    fn reference_digest(m: &Mesh) -> String {
        let mut b: Vec<u8> = b"xbg7-export.mesh/1".to_vec();
        let mut put = |v: u32| b.extend_from_slice(&v.to_le_bytes());
        put(m.positions.len() as u32);
        m.positions.iter().flatten().for_each(|c| put(c.to_bits()));
        put(m.normals.is_some() as u32);
        m.normals.iter().flatten().flatten().for_each(|c| put(c.to_bits()));
        put(m.texcoords.len() as u32);
        m.texcoords.iter().flatten().flatten().for_each(|c| put(c.to_bits()));
        put(m.colors.is_some() as u32);
        m.colors.iter().flatten().flatten().for_each(|c| put(c.to_bits()));
        put(m.indices.len() as u32);
        m.indices.iter().for_each(|&i| put(i));
        put(m.primitives.len() as u32);
        m.primitives.iter().for_each(|p| {
            put(p.first_index);
            put(p.index_count);
        });
        blake3::hash(&b).to_hex().to_string()
    }

    #[test]
    fn staged_digest_equals_the_digest_of_the_whole_byte_sequence() {
        assert_eq!(tri().digest(), reference_digest(&tri()));
        // Larger than several staging buffers, every attribute present.
        let n = 20_000u32;
        let m = Mesh {
            positions: (0..n).map(|i| [i as f32, -(i as f32), 0.5]).collect(),
            normals: Some(vec![[0.0, 1.0, 0.0]; n as usize]),
            texcoords: vec![(0..n).map(|i| [i as f32 / 7.0, 0.25]).collect()],
            colors: Some(vec![[0.1, 0.2, 0.3, 1.0]; n as usize]),
            indices: (0..n * 3).map(|i| i % n).collect(),
            primitives: vec![Primitive {
                first_index: 0,
                index_count: n * 3,
                material: None,
            }],
        };
        assert_eq!(m.digest(), reference_digest(&m));
    }

    #[test]
    fn digest_changes_with_any_bit_and_ignores_material() {
        let a = tri();
        let mut b = tri();
        b.primitives[0].material = Some("m".into());
        assert_eq!(a.digest(), b.digest());
        let mut c = tri();
        c.positions[2][1] = f32::from_bits(1.0f32.to_bits() + 1);
        assert_ne!(a.digest(), c.digest());
        let mut d = tri();
        d.indices = vec![0, 2, 1];
        assert_ne!(a.digest(), d.digest());
        let mut e = tri();
        e.normals = None;
        assert_ne!(a.digest(), e.digest());
        assert_eq!(a.digest().len(), 64);
    }

    #[test]
    fn bbox_is_exact() {
        let m = tri();
        assert_eq!(m.bbox(), Some(([0.0, 0.0, 0.0], [1.0, 1.0, 0.0])));
        assert_eq!(bbox_of(&[]), None);
    }
}
