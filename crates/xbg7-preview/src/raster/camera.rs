//! The fixed three-quarter camera: the file → glTF → view frame, the orthographic fit
//! of a mesh's drawable triangles into the image (margin, centring).

use xbg7::mesh::Mesh;

use super::types::{COS_PITCH, COS_YAW, MARGIN, MAX_SIZE, SIN_PITCH, SIN_YAW};

/// The file frame → glTF frame conversion previews use: the exporter's default Z mirror.
pub fn file_to_gltf(p: [f32; 3]) -> [f64; 3] {
    [p[0] as f64, p[1] as f64, -(p[2] as f64)]
}

/// Orthonormal camera basis in the glTF frame: `[right, up, towards_viewer]`
/// (right-handed: `right × up = towards_viewer`).
pub fn view_basis() -> [[f64; 3]; 3] {
    let right = [COS_YAW, 0.0, -SIN_YAW];
    let up = [-SIN_YAW * SIN_PITCH, COS_PITCH, -COS_YAW * SIN_PITCH];
    let toward = [SIN_YAW * COS_PITCH, SIN_PITCH, COS_YAW * COS_PITCH];
    [right, up, toward]
}

/// View-space coordinates `(right, up, towards viewer)` of a file-frame vector.
pub fn view_coords(p_file: [f32; 3]) -> [f64; 3] {
    let g = file_to_gltf(p_file);
    let b = view_basis();
    [dot3(g, b[0]), dot3(g, b[1]), dot3(g, b[2])]
}

pub(super) fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The fitted orthographic camera of one render.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Output image side in pixels.
    pub size: u32,
    /// View-space point mapped to the image centre (depth component: mid depth).
    pub center: [f64; 3],
    /// Output pixels per model unit.
    pub scale: f64,
}

impl Camera {
    /// Fit the fixed view to the drawable triangles of `mesh` (see the module doc).
    /// A mesh with nothing drawable gets the identity fit (scale 1, centred on the origin).
    pub fn fit(mesh: &Mesh, size: u32) -> Camera {
        let views = view_vertices(mesh);
        fit_views(mesh, &views, size.clamp(1, MAX_SIZE), &mut Vec::new())
    }

    /// Output-pixel position of a file-frame point: `[x right, y down, depth]`, depth in
    /// pixels relative to the fitted centre, larger = closer to the viewer.
    pub fn project(&self, p_file: [f32; 3]) -> [f64; 3] {
        self.project_view(view_coords(p_file))
    }

    pub(super) fn project_view(&self, v: [f64; 3]) -> [f64; 3] {
        let half = self.size as f64 / 2.0;
        [
            half + (v[0] - self.center[0]) * self.scale,
            half - (v[1] - self.center[1]) * self.scale,
            (v[2] - self.center[2]) * self.scale,
        ]
    }
}

/// View coordinates of every vertex into `out`; a non-finite position gets NaN
/// coordinates (see [`is_view`]).
pub(super) fn view_vertices_into(mesh: &Mesh, out: &mut Vec<[f64; 3]>) {
    out.clear();
    out.extend(mesh.positions.iter().map(|p| {
        if p.iter().all(|c| c.is_finite()) {
            view_coords(*p)
        } else {
            [f64::NAN; 3]
        }
    }));
}

pub(super) fn view_vertices(mesh: &Mesh) -> Vec<[f64; 3]> {
    let mut v = Vec::new();
    view_vertices_into(mesh, &mut v);
    v
}

/// A usable view-space vertex (its position was finite).
pub(super) fn is_view(v: &[f64; 3]) -> bool {
    !v[0].is_nan()
}

/// The drawable triangles (indices in range, vertices finite): triangle number (position
/// in the index list / 3) and index triple.
pub(super) fn drawable<'a>(mesh: &'a Mesh, views: &'a [[f64; 3]]) -> impl Iterator<Item = (usize, [usize; 3])> + 'a {
    mesh.indices.chunks_exact(3).enumerate().filter_map(move |(k, t)| {
        let ix = [t[0] as usize, t[1] as usize, t[2] as usize];
        ix.iter().all(|&i| views.get(i).is_some_and(is_view)).then_some((k, ix))
    })
}

/// The camera fitted to the vertices of the drawable triangles. `used` is a work buffer
/// (one flag per vertex), so each vertex is measured once however many triangles share it.
pub(super) fn fit_views(mesh: &Mesh, views: &[[f64; 3]], size: u32, used: &mut Vec<bool>) -> Camera {
    used.clear();
    used.resize(views.len(), false);
    for (_, ix) in drawable(mesh, views) {
        for i in ix {
            used[i] = true;
        }
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut any = false;
    for (v, _) in views.iter().zip(used.iter()).filter(|(_, u)| **u) {
        any = true;
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    if !any {
        return Camera {
            size,
            center: [0.0; 3],
            scale: 1.0,
        };
    }
    let center = [
        lo[0] * 0.5 + hi[0] * 0.5,
        lo[1] * 0.5 + hi[1] * 0.5,
        lo[2] * 0.5 + hi[2] * 0.5,
    ];
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let avail = size as f64 * (1.0 - 2.0 * MARGIN);
    let scale = avail / extent;
    let scale = if extent > 0.0 && scale.is_finite() { scale } else { 1.0 };
    Camera { size, center, scale }
}
