//! The generator's transcendental functions, in one place: `m_sin`, `m_cos`, `m_exp`,
//! `m_ln`, `m_powf` on `f32` and `f64`.
//!
//! Today they are std's, which calls the platform's C library (glibc on Linux, the UCRT on
//! Windows): those are not correctly rounded and differ in the last bit for some inputs,
//! so the demo disc cross-built for Windows differed from Linux's in 101 files (issue 41).
//! `tests/it/math_bits.rs` pins their results on sweeps of the generator's argument
//! ranges (bit patterns and digests recorded on Linux/glibc), so a platform whose library
//! rounds otherwise is named by the function that differs, not only by the disc's digest;
//! a pure-Rust implementation (the `libm` crate, not in `Cargo.lock` yet) would go here.
//! (`sqrt` is not among them: IEEE 754 requires it correctly rounded, and `powi` with
//! small constant exponents is multiplication.)

/// The generator's transcendental functions (see the module).
pub trait Math: Copy {
    fn m_sin(self) -> Self;
    fn m_cos(self) -> Self;
    fn m_exp(self) -> Self;
    fn m_ln(self) -> Self;
    fn m_powf(self, e: Self) -> Self;
}

macro_rules! std_math {
    ($t:ty) => {
        impl Math for $t {
            #[inline]
            fn m_sin(self) -> Self {
                self.sin()
            }
            #[inline]
            fn m_cos(self) -> Self {
                self.cos()
            }
            #[inline]
            fn m_exp(self) -> Self {
                self.exp()
            }
            #[inline]
            fn m_ln(self) -> Self {
                self.ln()
            }
            #[inline]
            fn m_powf(self, e: Self) -> Self {
                self.powf(e)
            }
        }
    };
}
std_math!(f32);
std_math!(f64);
