//! The generator's transcendental functions, in one place: `m_sin`, `m_cos`, `m_exp`,
//! `m_ln`, `m_powf` on `f32` and `f64`.
//!
//! They must give the same bits on every platform (issue 41). std's call the platform's C
//! library (glibc on Linux, the UCRT on Windows), which is not correctly rounded and
//! differs in the last bit for some inputs: the demo disc cross-built for Windows differed
//! from Linux's in 101 files. The pure-Rust `libm` crate is the same everywhere, but it is
//! musl's/FreeBSD's code, not glibc's, so it would move the disc recorded on Linux too
//! (`libm` 0.2.16 differs from glibc on 51 to 428 of `tests/it/math_bits.rs`'s 4096 sweep
//! points per function, every one of the seven, and `synth_perfect_bytes`' digest moves).
//! So the functions the generator uses are glibc's own (x86_64, FMA build) ported to Rust
//! in `math::glibc`, with `libm::fma` for the fused multiply-adds: the same bits as the
//! recording on every platform (its ignored test compares them with the C library on every
//! `f32` input and 20 M random `f64` ones: no difference on glibc 2.36 with FMA). `f64`
//! sin, cos and pow, which the generator does not call, are `libm`'s.
//! `tests/it/math_bits.rs` pins the results on sweeps of the generator's argument ranges,
//! so a change here is named by the function that differs, not only by the disc's digest.
//! (`sqrt` is not among them: IEEE 754 requires it correctly rounded, and `powi` with
//! small constant exponents is multiplication.)

mod glibc;

/// The generator's transcendental functions (see the module).
pub trait Math: Copy {
    fn m_sin(self) -> Self;
    fn m_cos(self) -> Self;
    fn m_exp(self) -> Self;
    fn m_ln(self) -> Self;
    fn m_powf(self, e: Self) -> Self;
}

impl Math for f32 {
    #[inline]
    fn m_sin(self) -> Self {
        glibc::sinf(self)
    }
    #[inline]
    fn m_cos(self) -> Self {
        glibc::cosf(self)
    }
    #[inline]
    fn m_exp(self) -> Self {
        glibc::expf(self)
    }
    #[inline]
    fn m_ln(self) -> Self {
        glibc::logf(self)
    }
    #[inline]
    fn m_powf(self, e: Self) -> Self {
        glibc::powf(self, e)
    }
}

impl Math for f64 {
    #[inline]
    fn m_sin(self) -> Self {
        libm::sin(self)
    }
    #[inline]
    fn m_cos(self) -> Self {
        libm::cos(self)
    }
    #[inline]
    fn m_exp(self) -> Self {
        glibc::exp(self)
    }
    #[inline]
    fn m_ln(self) -> Self {
        glibc::log(self)
    }
    #[inline]
    fn m_powf(self, e: Self) -> Self {
        libm::pow(self, e)
    }
}
