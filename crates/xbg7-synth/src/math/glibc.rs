//! glibc 2.36's x86_64 `sinf`, `cosf`, `expf`, `logf`, `powf`, `exp` and `log`, in Rust: the
//! bits the synthetic disc was recorded with (see the parent module), on every platform.
//!
//! The algorithms and constants are Arm's Optimized Routines (`math/sinf.c`, `cosf.c`,
//! `sincosf.h`, `expf.c`, `logf.c`, `powf.c`, `exp.c`, `log.c` and their data files), which
//! glibc ships since 2.27/2.28; the tables here were read from glibc 2.36's `libm.so.6`
//! (Debian 12) and equal Arm's. On a CPU with FMA, glibc runs the build of these compiled
//! with `-mfma -mavx2` (its x86_64 `*-fma` ifunc variants), in which GCC contracts every
//! `a * b + c` into a fused multiply-add: the `fma` calls below are those contractions,
//! read off that build's machine code (one product is not fused there, marked in
//! `exp_specialcase`). `fma` is correctly rounded wherever it runs, so these give the
//! same bits on every platform. Only round-to-nearest is served, errno is not set, and the
//! bits of a NaN result are not part of the contract.
//!
//! Arm's Optimized Routines (the `ARM-software/optimized-routines` repository):
//! Copyright (c) 1999-2022, Arm Limited. SPDX-License-Identifier: MIT OR Apache-2.0 WITH
//! LLVM-exception.

/// `a * b + c` rounded once (IEEE 754 fusedMultiplyAdd), in software unless the target
/// has the instruction: exact, so the same everywhere.
#[inline(always)]
fn fma(a: f64, b: f64, c: f64) -> f64 {
    libm::fma(a, b, c)
}

// ---- expf, powf: exp2f_data (EXP2F_TABLE_BITS = 5).
/// 2^(i/32), the exponent bits of i/32 taken out.
#[rustfmt::skip]
const EXP2F_TAB: [u64; 32] = [
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
];
/// 0x1.8p52 / 32
const EXP2F_SHIFT_SCALED: f64 = f64::from_bits(0x42e8000000000000);
const EXP2F_POLY: [f64; 3] = [
    f64::from_bits(0x3fac6af84b912394),
    f64::from_bits(0x3fcebfce50fac4f3),
    f64::from_bits(0x3fe62e42ff0c52d6),
];
/// 32 / ln 2
const EXP2F_INVLN2_SCALED: f64 = f64::from_bits(0x40471547652b82fe);
const EXP2F_POLY_SCALED: [f64; 3] = [
    f64::from_bits(0x3ebc6af84b912394),
    f64::from_bits(0x3f2ebfce50fac4f3),
    f64::from_bits(0x3f962e42ff0c52d6),
];
/// 0x1.8p52
const EXP2F_SHIFT: f64 = f64::from_bits(0x4338000000000000);

// ---- logf: logf_data (LOGF_TABLE_BITS = 4), (invc, logc) pairs.
#[rustfmt::skip]
const LOGF_TAB: [u64; 32] = [
    0x3ff661ec79f8f3be, 0xbfd57bf7808caade, 0x3ff571ed4aaf883d, 0xbfd2bef0a7c06ddb,
    0x3ff49539f0f010b0, 0xbfd01eae7f513a67, 0x3ff3c995b0b80385, 0xbfcb31d8a68224e9,
    0x3ff30d190c8864a5, 0xbfc6574f0ac07758, 0x3ff25e227b0b8ea0, 0xbfc1aa2bc79c8100,
    0x3ff1bb4a4a1a343f, 0xbfba4e76ce8c0e5e, 0x3ff12358f08ae5ba, 0xbfb1973c5a611ccc,
    0x3ff0953f419900a7, 0xbfa252f438e10c1e, 0x3ff0000000000000, 0x0000000000000000,
    0x3fee608cfd9a47ac, 0x3faaa5aa5df25984, 0x3feca4b31f026aa0, 0x3fbc5e53aa362eb4,
    0x3feb2036576afce6, 0x3fc526e57720db08, 0x3fe9c2d163a1aa2d, 0x3fcbc2860d224770,
    0x3fe886e6037841ed, 0x3fd1058bc8a07ee1, 0x3fe767dcf5534862, 0x3fd4043057b6ee09,
];
const LOGF_LN2: f64 = f64::from_bits(0x3fe62e42fefa39ef);
const LOGF_POLY: [f64; 3] = [
    f64::from_bits(0xbfd00ea348b88334),
    f64::from_bits(0x3fd5575b0be00b6a),
    f64::from_bits(0xbfdffffef20a4123),
];

// ---- powf: powf_log2_data (POWF_LOG2_TABLE_BITS = 4), (invc, logc) pairs.
#[rustfmt::skip]
const POWF_LOG2_TAB: [u64; 32] = [
    0x3ff661ec79f8f3be, 0xbfdefec65b963019, 0x3ff571ed4aaf883d, 0xbfdb0b6832d4fca4,
    0x3ff49539f0f010b0, 0xbfd7418b0a1fb77b, 0x3ff3c995b0b80385, 0xbfd39de91a6dcf7b,
    0x3ff30d190c8864a5, 0xbfd01d9bf3f2b631, 0x3ff25e227b0b8ea0, 0xbfc97c1d1b3b7af0,
    0x3ff1bb4a4a1a343f, 0xbfc2f9e393af3c9f, 0x3ff12358f08ae5ba, 0xbfb960cbbf788d5c,
    0x3ff0953f419900a7, 0xbfaa6f9db6475fce, 0x3ff0000000000000, 0x0000000000000000,
    0x3fee608cfd9a47ac, 0x3fb338ca9f24f53d, 0x3feca4b31f026aa0, 0x3fc476a9543891ba,
    0x3feb2036576afce6, 0x3fce840b4ac4e4d2, 0x3fe9c2d163a1aa2d, 0x3fd40645f0c6651c,
    0x3fe886e6037841ed, 0x3fd88e9c2c1b9ff8, 0x3fe767dcf5534862, 0x3fdce0a44eb17bcc,
];
const POWF_LOG2_POLY: [f64; 5] = [
    f64::from_bits(0x3fd27616c9496e0b),
    f64::from_bits(0xbfd71969a075c67a),
    f64::from_bits(0x3fdec70a6ca7badd),
    f64::from_bits(0xbfe7154748bef6c8),
    f64::from_bits(0x3ff71547652ab82b),
];

// ---- sinf, cosf: sincosf_table (x86 layout: sign[4], hpi_inv, hpi, c0, c1, s1, c2, s2,
// c3, s3, c4); the second computes -cos.
#[rustfmt::skip]
const SINCOSF_TAB: [u64; 28] = [
    0x3ff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0x3ff0000000000000,
    0x41645f306dc9c883, 0x3ff921fb54442d18, 0x3ff0000000000000, 0xbfdffffffd0c621c,
    0xbfc555545995a603, 0x3fa55553e1068f19, 0x3f81107605230bc4, 0xbf56c087e89a359d,
    0xbf2994eb3774cf24, 0x3ef99343027bf8c3, 0x3ff0000000000000, 0xbff0000000000000,
    0xbff0000000000000, 0x3ff0000000000000, 0x41645f306dc9c883, 0x3ff921fb54442d18,
    0xbff0000000000000, 0x3fdffffffd0c621c, 0xbfc555545995a603, 0xbfa55553e1068f19,
    0x3f81107605230bc4, 0x3f56c087e89a359d, 0xbf2994eb3774cf24, 0xbef99343027bf8c3,
];
/// 4/pi to 192 bits, 8 new bits per entry.
#[rustfmt::skip]
const INV_PIO4: [u32; 24] = [
    0x000000a2, 0x0000a2f9, 0x00a2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44,
    0x6e4e4415, 0x4e441529, 0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
    0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0, 0x34ddc0db, 0xddc0db62,
    0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
];

// ---- exp: exp_data (EXP_TABLE_BITS = 7), (tail, sbits) pairs.
/// 128 / ln 2
const EXP_INVLN2N: f64 = f64::from_bits(0x40671547652b82fe);
const EXP_NEGLN2HIN: f64 = f64::from_bits(0xbf762e42fefa0000);
const EXP_NEGLN2LON: f64 = f64::from_bits(0xbd0cf79abc9e3b3a);
const EXP_POLY: [f64; 4] = [
    f64::from_bits(0x3fdffffffffffdbd),
    f64::from_bits(0x3fc555555555543c),
    f64::from_bits(0x3fa55555cf172b91),
    f64::from_bits(0x3f81111167a4d017),
];
/// 0x1.8p52
const EXP_SHIFT: f64 = f64::from_bits(0x4338000000000000);
#[rustfmt::skip]
const EXP_TAB: [u64; 256] = [
    0x0000000000000000, 0x3ff0000000000000, 0x3c9b3b4f1a88bf6e, 0x3feff63da9fb3335,
    0xbc7160139cd8dc5d, 0x3fefec9a3e778061, 0xbc905e7a108766d1, 0x3fefe315e86e7f85,
    0x3c8cd2523567f613, 0x3fefd9b0d3158574, 0xbc8bce8023f98efa, 0x3fefd06b29ddf6de,
    0x3c60f74e61e6c861, 0x3fefc74518759bc8, 0x3c90a3e45b33d399, 0x3fefbe3ecac6f383,
    0x3c979aa65d837b6d, 0x3fefb5586cf9890f, 0x3c8eb51a92fdeffc, 0x3fefac922b7247f7,
    0x3c3ebe3d702f9cd1, 0x3fefa3ec32d3d1a2, 0xbc6a033489906e0b, 0x3fef9b66affed31b,
    0xbc9556522a2fbd0e, 0x3fef9301d0125b51, 0xbc5080ef8c4eea55, 0x3fef8abdc06c31cc,
    0xbc91c923b9d5f416, 0x3fef829aaea92de0, 0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51,
    0xbc801b15eaa59348, 0x3fef72b83c7d517b, 0xbc8f1ff055de323d, 0x3fef6af9388c8dea,
    0x3c8b898c3f1353bf, 0x3fef635beb6fcb75, 0xbc96d99c7611eb26, 0x3fef5be084045cd4,
    0x3c9aecf73e3a2f60, 0x3fef54873168b9aa, 0xbc8fe782cb86389d, 0x3fef4d5022fcd91d,
    0x3c8a6f4144a6c38d, 0x3fef463b88628cd6, 0x3c807a05b0e4047d, 0x3fef3f49917ddc96,
    0x3c968efde3a8a894, 0x3fef387a6e756238, 0x3c875e18f274487d, 0x3fef31ce4fb2a63f,
    0x3c80472b981fe7f2, 0x3fef2b4565e27cdd, 0xbc96b87b3f71085e, 0x3fef24dfe1f56381,
    0x3c82f7e16d09ab31, 0x3fef1e9df51fdee1, 0xbc3d219b1a6fbffa, 0x3fef187fd0dad990,
    0x3c8b3782720c0ab4, 0x3fef1285a6e4030b, 0x3c6e149289cecb8f, 0x3fef0cafa93e2f56,
    0x3c834d754db0abb6, 0x3fef06fe0a31b715, 0x3c864201e2ac744c, 0x3fef0170fc4cd831,
    0x3c8fdd395dd3f84a, 0x3feefc08b26416ff, 0xbc86a3803b8e5b04, 0x3feef6c55f929ff1,
    0xbc924aedcc4b5068, 0x3feef1a7373aa9cb, 0xbc9907f81b512d8e, 0x3feeecae6d05d866,
    0xbc71d1e83e9436d2, 0x3feee7db34e59ff7, 0xbc991919b3ce1b15, 0x3feee32dc313a8e5,
    0x3c859f48a72a4c6d, 0x3feedea64c123422, 0xbc9312607a28698a, 0x3feeda4504ac801c,
    0xbc58a78f4817895b, 0x3feed60a21f72e2a, 0xbc7c2c9b67499a1b, 0x3feed1f5d950a897,
    0x3c4363ed60c2ac11, 0x3feece086061892d, 0x3c9666093b0664ef, 0x3feeca41ed1d0057,
    0x3c6ecce1daa10379, 0x3feec6a2b5c13cd0, 0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de,
    0x3c7690cebb7aafb0, 0x3feebfdad5362a27, 0x3c931dbdeb54e077, 0x3feebcb299fddd0d,
    0xbc8f94340071a38e, 0x3feeb9b2769d2ca7, 0xbc87deccdc93a349, 0x3feeb6daa2cf6642,
    0xbc78dec6bd0f385f, 0x3feeb42b569d4f82, 0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f,
    0x3c93350518fdd78e, 0x3feeaf4736b527da, 0x3c7b98b72f8a9b05, 0x3feead12d497c7fd,
    0x3c9063e1e21c5409, 0x3feeab07dd485429, 0x3c34c7855019c6ea, 0x3feea9268a5946b7,
    0x3c9432e62b64c035, 0x3feea76f15ad2148, 0xbc8ce44a6199769f, 0x3feea5e1b976dc09,
    0xbc8c33c53bef4da8, 0x3feea47eb03a5585, 0xbc845378892be9ae, 0x3feea34634ccc320,
    0xbc93cedd78565858, 0x3feea23882552225, 0x3c5710aa807e1964, 0x3feea155d44ca973,
    0xbc93b3efbf5e2228, 0x3feea09e667f3bcd, 0xbc6a12ad8734b982, 0x3feea012750bdabf,
    0xbc6367efb86da9ee, 0x3fee9fb23c651a2f, 0xbc80dc3d54e08851, 0x3fee9f7df9519484,
    0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74, 0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174,
    0xbc8619321e55e68a, 0x3fee9feb564267c9, 0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f,
    0xbc7b32dcb94da51d, 0x3feea11473eb0187, 0x3c94ecfd5467c06b, 0x3feea1ed0130c132,
    0x3c65ebe1abd66c55, 0x3feea2f336cf4e62, 0xbc88a1c52fb3cf42, 0x3feea427543e1a12,
    0xbc9369b6f13b3734, 0x3feea589994cce13, 0xbc805e843a19ff1e, 0x3feea71a4623c7ad,
    0xbc94d450d872576e, 0x3feea8d99b4492ed, 0x3c90ad675b0e8a00, 0x3feeaac7d98a6699,
    0x3c8db72fc1f0eab4, 0x3feeace5422aa0db, 0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c,
    0x3c7bf68359f35f44, 0x3feeb1ae99157736, 0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6,
    0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5, 0xbc6c23f97c90b959, 0x3feeba44cbc8520f,
    0xbc92434322f4f9aa, 0x3feebd829fde4e50, 0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba,
    0x3c71affc2b91ce27, 0x3feec49182a3f090, 0x3c6dd235e10a73bb, 0x3feec86319e32323,
    0xbc87c50422622263, 0x3feecc667b5de565, 0x3c8b1c86e3e231d5, 0x3feed09bec4a2d33,
    0xbc91bbd1d3bcbb15, 0x3feed503b23e255d, 0x3c90cc319cee31d2, 0x3feed99e1330b358,
    0x3c8469846e735ab3, 0x3feede6b5579fdbf, 0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a,
    0x3c8c1a7792cb3387, 0x3feee89f995ad3ad, 0xbc907b8f4ad1d9fa, 0x3feeee07298db666,
    0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb, 0xbc90a40e3da6f640, 0x3feef9728de5593a,
    0xbc68d6f438ad9334, 0x3feeff76f2fb5e47, 0xbc91eee26b588a35, 0x3fef05b030a1064a,
    0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2, 0xbc91bdfbfa9298ac, 0x3fef12c25bd71e09,
    0x3c736eae30af0cb3, 0x3fef199bdd85529c, 0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a,
    0x3c84e08fd10959ac, 0x3fef27f12e57d14b, 0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5,
    0x3c676b2c6c921968, 0x3fef3720dcef9069, 0xbc808a1883ccb5d2, 0x3fef3f0b555dc3fa,
    0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c, 0xbc900dae3875a949, 0x3fef4f87080d89f2,
    0x3c74a385a63d07a7, 0x3fef5818dcfba487, 0xbc82919e2040220f, 0x3fef60e316c98398,
    0x3c8e5a50d5c192ac, 0x3fef69e603db3285, 0x3c843a59ac016b4b, 0x3fef7321f301b460,
    0xbc82d52107b43e1f, 0x3fef7c97337b9b5f, 0xbc892ab93b470dc9, 0x3fef864614f5a129,
    0x3c74b604603a88d3, 0x3fef902ee78b3ff6, 0x3c83c5ec519d7271, 0x3fef9a51fbc74c83,
    0xbc8ff7128fd391f0, 0x3fefa4afa2a490da, 0xbc8dae98e223747d, 0x3fefaf482d8e67f1,
    0x3c8ec3bc41aa2008, 0x3fefba1bee615a27, 0x3c842b94c3a9eb32, 0x3fefc52b376bba97,
    0x3c8a64a931d185ee, 0x3fefd0765b6e4540, 0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14,
    0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8, 0x3c5305c14160cc89, 0x3feff3c22b8f71f1,
];

// ---- log: log_data (LOG_TABLE_BITS = 7), (invc, logc) pairs.
const LOG_LN2HI: f64 = f64::from_bits(0x3fe62e42fefa3800);
const LOG_LN2LO: f64 = f64::from_bits(0x3d2ef35793c76730);
const LOG_POLY: [f64; 5] = [
    f64::from_bits(0xbfe0000000000001),
    f64::from_bits(0x3fd555555551305b),
    f64::from_bits(0xbfcfffffffeb4590),
    f64::from_bits(0x3fc999b324f10111),
    f64::from_bits(0xbfc55575e506c89f),
];
const LOG_POLY1: [f64; 11] = [
    f64::from_bits(0xbfe0000000000000),
    f64::from_bits(0x3fd5555555555577),
    f64::from_bits(0xbfcffffffffffdcb),
    f64::from_bits(0x3fc999999995dd0c),
    f64::from_bits(0xbfc55555556745a7),
    f64::from_bits(0x3fc24924a344de30),
    f64::from_bits(0xbfbfffffa4423d65),
    f64::from_bits(0x3fbc7184282ad6ca),
    f64::from_bits(0xbfb999eb43b068ff),
    f64::from_bits(0x3fb78182f7afd085),
    f64::from_bits(0xbfb5521375d145cd),
];
#[rustfmt::skip]
const LOG_TAB: [u64; 256] = [
    0x3ff734f0c3e0de9f, 0xbfd7cc7f79e69000, 0x3ff713786a2ce91f, 0xbfd76feec20d0000,
    0x3ff6f26008fab5a0, 0xbfd713e31351e000, 0x3ff6d1a61f138c7d, 0xbfd6b85b38287800,
    0x3ff6b1490bc5b4d1, 0xbfd65d5590807800, 0x3ff69147332f0cba, 0xbfd602d076180000,
    0x3ff6719f18224223, 0xbfd5a8ca86909000, 0x3ff6524f99a51ed9, 0xbfd54f4356035000,
    0x3ff63356aa8f24c4, 0xbfd4f637c36b4000, 0x3ff614b36b9ddc14, 0xbfd49da7fda85000,
    0x3ff5f66452c65c4c, 0xbfd445923989a800, 0x3ff5d867b5912c4f, 0xbfd3edf439b0b800,
    0x3ff5babccb5b90de, 0xbfd396ce448f7000, 0x3ff59d61f2d91a78, 0xbfd3401e17bda000,
    0x3ff5805612465687, 0xbfd2e9e2ef468000, 0x3ff56397cee76bd3, 0xbfd2941b3830e000,
    0x3ff54725e2a77f93, 0xbfd23ec58cda8800, 0x3ff52aff42064583, 0xbfd1e9e129279000,
    0x3ff50f22dbb2bddf, 0xbfd1956d2b48f800, 0x3ff4f38f4734ded7, 0xbfd141679ab9f800,
    0x3ff4d843cfde2840, 0xbfd0edd094ef9800, 0x3ff4bd3ec078a3c8, 0xbfd09aa518db1000,
    0x3ff4a27fc3e0258a, 0xbfd047e65263b800, 0x3ff4880524d48434, 0xbfcfeb224586f000,
    0x3ff46dce1b192d0b, 0xbfcf474a7517b000, 0x3ff453d9d3391854, 0xbfcea4443d103000,
    0x3ff43a2744b4845a, 0xbfce020d44e9b000, 0x3ff420b54115f8fb, 0xbfcd60a22977f000,
    0x3ff40782da3ef4b1, 0xbfccc00104959000, 0x3ff3ee8f5d57fe8f, 0xbfcc202956891000,
    0x3ff3d5d9a00b4ce9, 0xbfcb81178d811000, 0x3ff3bd60c010c12b, 0xbfcae2c9ccd3d000,
    0x3ff3a5242b75dab8, 0xbfca45402e129000, 0x3ff38d22cd9fd002, 0xbfc9a877681df000,
    0x3ff3755bc5847a1c, 0xbfc90c6d69483000, 0x3ff35dce49ad36e2, 0xbfc87120a645c000,
    0x3ff34679984dd440, 0xbfc7d68fb4143000, 0x3ff32f5cceffcb24, 0xbfc73cb83c627000,
    0x3ff3187775a10d49, 0xbfc6a39a9b376000, 0x3ff301c8373e3990, 0xbfc60b3154b7a000,
    0x3ff2eb4ebb95f841, 0xbfc5737d76243000, 0x3ff2d50a0219a9d1, 0xbfc4dc7b8fc23000,
    0x3ff2bef9a8b7fd2a, 0xbfc4462c51d20000, 0x3ff2a91c7a0c1bab, 0xbfc3b08abc830000,
    0x3ff293726014b530, 0xbfc31b996b490000, 0x3ff27dfa5757a1f5, 0xbfc2875490a44000,
    0x3ff268b39b1d3bbf, 0xbfc1f3b9f879a000, 0x3ff2539d838ff5bd, 0xbfc160c8252ca000,
    0x3ff23eb7aac9083b, 0xbfc0ce7f57f72000, 0x3ff22a012ba940b6, 0xbfc03cdc49fea000,
    0x3ff2157996cc4132, 0xbfbf57bdbc4b8000, 0x3ff201201dd2fc9b, 0xbfbe370896404000,
    0x3ff1ecf4494d480b, 0xbfbd17983ef94000, 0x3ff1d8f5528f6569, 0xbfbbf9674ed8a000,
    0x3ff1c52311577e7c, 0xbfbadc79202f6000, 0x3ff1b17c74cb26e9, 0xbfb9c0c3e7288000,
    0x3ff19e010c2c1ab6, 0xbfb8a646b372c000, 0x3ff18ab07bb670bd, 0xbfb78d01b3ac0000,
    0x3ff1778a25efbcb6, 0xbfb674f145380000, 0x3ff1648d354c31da, 0xbfb55e0e6d878000,
    0x3ff151b990275fdd, 0xbfb4485cdea1e000, 0x3ff13f0ea432d24c, 0xbfb333d94d6aa000,
    0x3ff12c8b7210f9da, 0xbfb22079f8c56000, 0x3ff11a3028ecb531, 0xbfb10e4698622000,
    0x3ff107fbda8434af, 0xbfaffa6c6ad20000, 0x3ff0f5ee0f4e6bb3, 0xbfadda8d4a774000,
    0x3ff0e4065d2a9fce, 0xbfabbcece4850000, 0x3ff0d244632ca521, 0xbfa9a1894012c000,
    0x3ff0c0a77ce2981a, 0xbfa788583302c000, 0x3ff0af2f83c636d1, 0xbfa5715e67d68000,
    0x3ff09ddb98a01339, 0xbfa35c8a49658000, 0x3ff08cabaf52e7df, 0xbfa149e364154000,
    0x3ff07b9f2f4e28fb, 0xbf9e72c082eb8000, 0x3ff06ab58c358f19, 0xbf9a55f152528000,
    0x3ff059eea5ecf92c, 0xbf963d62cf818000, 0x3ff04949cdd12c90, 0xbf9228fb8caa0000,
    0x3ff038c6c6f0ada9, 0xbf8c317b20f90000, 0x3ff02865137932a9, 0xbf8419355daa0000,
    0x3ff0182427ea7348, 0xbf781203c2ec0000, 0x3ff008040614b195, 0xbf60040979240000,
    0x3fefe01ff726fa1a, 0x3f6feff384900000, 0x3fefa11cc261ea74, 0x3f87dc41353d0000,
    0x3fef6310b081992e, 0x3f93cea3c4c28000, 0x3fef25f63ceeadcd, 0x3f9b9fc114890000,
    0x3feee9c8039113e7, 0x3fa1b0d8ce110000, 0x3feeae8078cbb1ab, 0x3fa58a5bd001c000,
    0x3fee741aa29d0c9b, 0x3fa95c8340d88000, 0x3fee3a91830a99b5, 0x3fad276aef578000,
    0x3fee01e009609a56, 0x3fb07598e598c000, 0x3fedca01e577bb98, 0x3fb253f5e30d2000,
    0x3fed92f20b7c9103, 0x3fb42edd8b380000, 0x3fed5cac66fb5cce, 0x3fb606598757c000,
    0x3fed272caa5ede9d, 0x3fb7da76356a0000, 0x3fecf26e3e6b2ccd, 0x3fb9ab434e1c6000,
    0x3fecbe6da2a77902, 0x3fbb78c7bb0d6000, 0x3fec8b266d37086d, 0x3fbd431332e72000,
    0x3fec5894bd5d5804, 0x3fbf0a3171de6000, 0x3fec26b533bb9f8c, 0x3fc067152b914000,
    0x3febf583eeece73f, 0x3fc147858292b000, 0x3febc4fd75db96c1, 0x3fc2266ecdca3000,
    0x3feb951e0c864a28, 0x3fc303d7a6c55000, 0x3feb65e2c5ef3e2c, 0x3fc3dfc33c331000,
    0x3feb374867c9888b, 0x3fc4ba366b7a8000, 0x3feb094b211d304a, 0x3fc5933928d1f000,
    0x3feadbe885f2ef7e, 0x3fc66acd2418f000, 0x3feaaf1d31603da2, 0x3fc740f8ec669000,
    0x3fea82e63fd358a7, 0x3fc815c0f51af000, 0x3fea5740ef09738b, 0x3fc8e92954f68000,
    0x3fea2c2a90ab4b27, 0x3fc9bb3602f84000, 0x3fea01a01393f2d1, 0x3fca8bed1c2c0000,
    0x3fe9d79f24db3c1b, 0x3fcb5b515c01d000, 0x3fe9ae2505c7b190, 0x3fcc2967ccbcc000,
    0x3fe9852ef297ce2f, 0x3fccf635d5486000, 0x3fe95cbaeea44b75, 0x3fcdc1bd3446c000,
    0x3fe934c69de74838, 0x3fce8c01b8cfe000, 0x3fe90d4f2f6752e6, 0x3fcf5509c0179000,
    0x3fe8e6528effd79d, 0x3fd00e6c121fb800, 0x3fe8bfce9fcc007c, 0x3fd071b80e93d000,
    0x3fe899c0dabec30e, 0x3fd0d46b9e867000, 0x3fe87427aa2317fb, 0x3fd13687334bd000,
    0x3fe84f00acb39a08, 0x3fd1980d67234800, 0x3fe82a49e8653e55, 0x3fd1f8ffe0cc8000,
    0x3fe8060195f40260, 0x3fd2595fd7636800, 0x3fe7e22563e0a329, 0x3fd2b9300914a800,
    0x3fe7beb377dcb5ad, 0x3fd3187210436000, 0x3fe79baa679725c2, 0x3fd377266dec1800,
    0x3fe77907f2170657, 0x3fd3d54ffbaf3000, 0x3fe756cadbd6130c, 0x3fd432eee32fe000,
];

#[inline(always)]
fn f64c(bits: u64) -> f64 {
    f64::from_bits(bits)
}

// ---- Error cases (glibc's math_err.c / math_errf.c, less errno).

fn xflowf(sign: u32, y: f32) -> f32 {
    (if sign != 0 { -y } else { y }) * y
}
fn oflowf(sign: u32) -> f32 {
    xflowf(sign, f32::from_bits(0x7000_0000)) // 0x1p97
}
fn uflowf(sign: u32) -> f32 {
    xflowf(sign, f32::from_bits(0x1000_0000)) // 0x1p-95
}
fn may_uflowf(sign: u32) -> f32 {
    xflowf(sign, f32::from_bits(0x1a20_0000)) // 0x1.4p-75
}
fn divzerof(sign: u32) -> f32 {
    (if sign != 0 { -1.0f32 } else { 1.0 }) / 0.0
}
// 0/0 as glibc computes it (a NaN input's own NaN, else the hardware's default NaN).
#[allow(clippy::eq_op)]
fn invalidf(x: f32) -> f32 {
    (x - x) / (x - x)
}
fn xflow(sign: u32, y: f64) -> f64 {
    (if sign != 0 { -y } else { y }) * y
}
fn oflow(sign: u32) -> f64 {
    xflow(sign, f64c(0x7000_0000_0000_0000)) // 0x1p769
}
fn uflow(sign: u32) -> f64 {
    xflow(sign, f64c(0x1000_0000_0000_0000)) // 0x1p-767
}
fn divzero(sign: u32) -> f64 {
    (if sign != 0 { -1.0f64 } else { 1.0 }) / 0.0
}
// 0/0 as glibc computes it (a NaN input's own NaN, else the hardware's default NaN).
#[allow(clippy::eq_op)]
fn invalid(x: f64) -> f64 {
    (x - x) / (x - x)
}

// ---- expf

/// e^x for f32 (glibc `__expf`, ARM's `expf.c`).
pub fn expf(x: f32) -> f32 {
    let xd = x as f64;
    let abstop = (x.to_bits() >> 20) & 0x7ff;
    if abstop >= 88.0f32.to_bits() >> 20 {
        // |x| >= 88 or x is nan.
        if x.to_bits() == f32::NEG_INFINITY.to_bits() {
            return 0.0;
        }
        if abstop >= f32::INFINITY.to_bits() >> 20 {
            return x + x;
        }
        if x > f32::from_bits(0x42b1_7217) {
            // x > log(0x1p128) ~= 88.72
            return oflowf(0);
        }
        if x < f32::from_bits(0xc2cf_f1b4) {
            // x < log(0x1p-150) ~= -103.97
            return uflowf(0);
        }
        if x < f32::from_bits(0xc2ce_8ecf) {
            // x < log(0x1p-149) ~= -103.28
            return may_uflowf(0);
        }
    }
    // x*N/Ln2 = k + r with r in [-1/2, 1/2] and int k (z = InvLn2N * xd, fused twice).
    let kd = fma(EXP2F_INVLN2_SCALED, xd, EXP2F_SHIFT);
    let ki = kd.to_bits();
    let kd = kd - EXP2F_SHIFT;
    let r = fma(EXP2F_INVLN2_SCALED, xd, -kd);
    // exp(x) = 2^(k/N) * 2^(r/N) ~= s * (C0*r^3 + C1*r^2 + C2*r + 1)
    let t = EXP2F_TAB[(ki % 32) as usize].wrapping_add(ki << (52 - 5));
    let s = f64::from_bits(t);
    let c = &EXP2F_POLY_SCALED;
    let z = fma(c[0], r, c[1]);
    let r2 = r * r;
    let y = fma(c[2], r, 1.0);
    let y = fma(z, r2, y);
    (y * s) as f32
}

// ---- logf

/// ln x for f32 (glibc `__logf`, ARM's `logf.c`).
pub fn logf(x: f32) -> f32 {
    let mut ix = x.to_bits();
    // Fix sign of zero with downward rounding when x==1.
    if ix == 0x3f80_0000 {
        return 0.0;
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // x < 0x1p-126 or inf or nan.
        if ix.wrapping_mul(2) == 0 {
            return divzerof(1);
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if (ix & 0x8000_0000) != 0 || ix.wrapping_mul(2) >= 0xff00_0000 {
            return invalidf(x);
        }
        // x is subnormal, normalize it.
        ix = (x * f32::from_bits(0x4b00_0000)).to_bits(); // 0x1p23
        ix = ix.wrapping_sub(23 << 23);
    }
    // x = 2^k z; where z is in range [OFF,2*OFF] and exact.
    let tmp = ix.wrapping_sub(0x3f33_0000);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = (f64c(LOGF_TAB[2 * i]), f64c(LOGF_TAB[2 * i + 1]));
    let z = f32::from_bits(iz) as f64;
    // log(x) = log1p(z/c-1) + log(c) + k*Ln2
    let r = fma(z, invc, -1.0);
    let y0 = fma(k as f64, LOGF_LN2, logc);
    let a = &LOGF_POLY;
    let r2 = r * r;
    let y = fma(a[1], r, a[2]);
    let y = fma(a[0], r2, y);
    let y = fma(y, r2, y0 + r);
    y as f32
}

// ---- powf

/// Subnormal input is normalized so ix has negative biased exponent.
#[inline(always)]
fn log2_inline(ix: u32) -> f64 {
    let tmp = ix.wrapping_sub(0x3f33_0000);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let top = tmp & 0xff80_0000;
    let iz = ix.wrapping_sub(top);
    let k = (top as i32) >> 23;
    let (invc, logc) = (f64c(POWF_LOG2_TAB[2 * i]), f64c(POWF_LOG2_TAB[2 * i + 1]));
    let z = f32::from_bits(iz) as f64;
    // log2(x) = log1p(z/c-1)/ln2 + log2(c) + k
    let r = fma(z, invc, -1.0);
    let y0 = logc + k as f64;
    let a = &POWF_LOG2_POLY;
    let r2 = r * r;
    let y = fma(a[0], r, a[1]);
    let p = fma(a[2], r, a[3]);
    let r4 = r2 * r2;
    let q = fma(a[4], r, y0);
    let q = fma(p, r2, q);
    fma(y, r4, q)
}

const SIGN_BIAS: u64 = 1 << (5 + 11);

/// xd in [-1021,1023], sign_bias sets the sign of the result.
#[inline(always)]
fn exp2_inline(xd: f64, sign_bias: u64) -> f64 {
    // x = k/N + r with r in [-1/(2N), 1/(2N)]
    let kd = xd + EXP2F_SHIFT_SCALED;
    let ki = kd.to_bits();
    let kd = kd - EXP2F_SHIFT_SCALED;
    let r = xd - kd;
    // exp2(x) = 2^(k/N) * 2^r ~= s * (C0*r^3 + C1*r^2 + C2*r + 1)
    let ski = ki.wrapping_add(sign_bias);
    let t = EXP2F_TAB[(ki % 32) as usize].wrapping_add(ski << (52 - 5));
    let s = f64::from_bits(t);
    let c = &EXP2F_POLY;
    let z = fma(c[0], r, c[1]);
    let r2 = r * r;
    let y = fma(c[2], r, 1.0);
    let y = fma(z, r2, y);
    y * s
}

/// 0 if not int, 1 if odd int, 2 if even int (iy: a non-zero finite value's bits).
fn checkint(iy: u32) -> u32 {
    let e = (iy >> 23) & 0xff;
    if e < 0x7f {
        return 0;
    }
    if e > 0x7f + 23 {
        return 2;
    }
    if iy & ((1 << (0x7f + 23 - e)) - 1) != 0 {
        return 0;
    }
    if iy & (1 << (0x7f + 23 - e)) != 0 {
        return 1;
    }
    2
}

fn zeroinfnan(ix: u32) -> bool {
    ix.wrapping_mul(2).wrapping_sub(1) >= 2 * 0x7f80_0000 - 1
}

fn issignalingf(x: f32) -> bool {
    let ix = x.to_bits();
    2 * (ix ^ 0x0040_0000) as u64 > 2 * 0x7fc0_0000u64
}

/// x^y for f32 (glibc `__powf`, ARM's `powf.c`).
pub fn powf(x: f32, y: f32) -> f32 {
    let mut sign_bias: u64 = 0;
    let mut ix = x.to_bits();
    let iy = y.to_bits();
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 || zeroinfnan(iy) {
        // Either (x < 0x1p-126 or inf or nan) or (y is 0 or inf or nan).
        if zeroinfnan(iy) {
            if iy.wrapping_mul(2) == 0 {
                return if issignalingf(x) { x + y } else { 1.0 };
            }
            if ix == 0x3f80_0000 {
                return if issignalingf(y) { x + y } else { 1.0 };
            }
            if ix.wrapping_mul(2) > 2 * 0x7f80_0000 || iy.wrapping_mul(2) > 2 * 0x7f80_0000 {
                return x + y;
            }
            if ix.wrapping_mul(2) == 2 * 0x3f80_0000 {
                return 1.0;
            }
            if (ix.wrapping_mul(2) < 2 * 0x3f80_0000) == ((iy & 0x8000_0000) == 0) {
                return 0.0; // |x|<1 && y==inf or |x|>1 && y==-inf.
            }
            return y * y;
        }
        if zeroinfnan(ix) {
            let mut x2 = x * x;
            if (ix & 0x8000_0000) != 0 && checkint(iy) == 1 {
                x2 = -x2;
                sign_bias = 1;
            }
            if ix.wrapping_mul(2) == 0 && (iy & 0x8000_0000) != 0 {
                return divzerof(sign_bias as u32);
            }
            return if (iy & 0x8000_0000) != 0 { 1.0 / x2 } else { x2 };
        }
        // x and y are non-zero finite.
        if (ix & 0x8000_0000) != 0 {
            // Finite x < 0.
            let yint = checkint(iy);
            if yint == 0 {
                return invalidf(x);
            }
            if yint == 1 {
                sign_bias = SIGN_BIAS;
            }
            ix &= 0x7fff_ffff;
        }
        if ix < 0x0080_0000 {
            // Normalize subnormal x so exponent becomes negative.
            ix = (x * f32::from_bits(0x4b00_0000)).to_bits();
            ix &= 0x7fff_ffff;
            ix = ix.wrapping_sub(23 << 23);
        }
    }
    let logx = log2_inline(ix);
    let ylogx = y as f64 * logx; // cannot overflow, y is single prec.
    if ((ylogx.to_bits() >> 47) & 0xffff) >= 126.0f64.to_bits() >> 47 {
        // |y*log(x)| >= 126.
        if ylogx > f64c(0x405f_ffff_ffd1_d571) {
            // |x^y| > 0x1.ffffffp127.
            return oflowf(sign_bias as u32);
        }
        // (glibc checks here for a rounding mode away from zero; Rust rounds to nearest.)
        if ylogx <= -150.0 {
            return uflowf(sign_bias as u32);
        }
        if ylogx < -149.0 {
            return may_uflowf(sign_bias as u32);
        }
    }
    exp2_inline(ylogx, sign_bias) as f32
}

// ---- sinf, cosf

#[inline(always)]
fn sc(p: usize, i: usize) -> f64 {
    f64c(SINCOSF_TAB[14 * p + i])
}
const SC_HPI_INV: usize = 4;
const SC_HPI: usize = 5;
const SC_C0: usize = 6;
const SC_C1: usize = 7;
const SC_S1: usize = 8;
const SC_C2: usize = 9;
const SC_S2: usize = 10;
const SC_C3: usize = 11;
const SC_S3: usize = 12;
const SC_C4: usize = 13;

/// The sine of x (x2 = x squared) with polynomial table p, or the cosine if n is odd.
#[inline(always)]
fn sinf_poly(x: f64, x2: f64, p: usize, n: i32) -> f32 {
    if n & 1 == 0 {
        let x3 = x * x2;
        let s1 = fma(x2, sc(p, SC_S3), sc(p, SC_S2));
        let x7 = x3 * x2;
        let s = fma(x3, sc(p, SC_S1), x);
        fma(x7, s1, s) as f32
    } else {
        let x4 = x2 * x2;
        let c2 = fma(x2, sc(p, SC_C4), sc(p, SC_C3));
        let c1 = fma(x2, sc(p, SC_C1), sc(p, SC_C0));
        let x6 = x4 * x2;
        let c = fma(x4, sc(p, SC_C2), c1);
        fma(x6, c2, c) as f32
    }
}

/// x mod pi/2 in [-pi/4, pi/4] and the quadrant, for |x| < 120.
#[inline(always)]
fn reduce_fast(x: f64) -> (f64, i32) {
    let r = x * sc(0, SC_HPI_INV);
    let n = ((r as i32).wrapping_add(0x80_0000)) >> 24;
    (fma(-(n as f64), sc(0, SC_HPI), x), n)
}

/// xi (a float's bits, >= 2, sign ignored) mod pi/2 and the quadrant, by integer arithmetic.
fn reduce_large(xi: u32) -> (f64, i32) {
    let arr = &INV_PIO4[((xi >> 26) & 15) as usize..];
    let shift = (xi >> 23) & 7;
    let xi = ((xi & 0xff_ffff) | 0x80_0000) << shift;
    let res0 = xi.wrapping_mul(arr[0]) as u64;
    let res1 = xi as u64 * arr[4] as u64;
    let res2 = xi as u64 * arr[8] as u64;
    let res0 = ((res2 >> 32) | (res0 << 32)).wrapping_add(res1);
    let n = res0.wrapping_add(1 << 61) >> 62;
    let res0 = res0.wrapping_sub(n << 62);
    let x = res0 as i64 as f64;
    (x * f64c(0x3c19_21fb_5444_2d18), n as i32) // 2pi * 2^-64
}

const ABSTOP12_PIO4: u32 = 0x3f4; // 0x1.921FB6p-1f
const ABSTOP12_TINY: u32 = 0x398; // 0x1p-12f
const ABSTOP12_120: u32 = 0x42f; // 120.0f
const ABSTOP12_INF: u32 = 0x7f8;

/// sin x for f32 (glibc `__sinf`, ARM's `sinf.c`).
pub fn sinf(y: f32) -> f32 {
    let x = y as f64;
    let abstop = (y.to_bits() >> 20) & 0x7ff;
    if abstop < ABSTOP12_PIO4 {
        if abstop < ABSTOP12_TINY {
            return y;
        }
        sinf_poly(x, x * x, 0, 0)
    } else if abstop < ABSTOP12_120 {
        let (x, n) = reduce_fast(x);
        let s = sc(0, (n & 3) as usize);
        let p = if n & 2 != 0 { 1 } else { 0 };
        sinf_poly(x * s, x * x, p, n)
    } else if abstop < ABSTOP12_INF {
        let xi = y.to_bits();
        let sign = (xi >> 31) as i32;
        let (x, n) = reduce_large(xi);
        let s = sc(0, ((n + sign) & 3) as usize);
        let p = if (n + sign) & 2 != 0 { 1 } else { 0 };
        sinf_poly(x * s, x * x, p, n)
    } else {
        invalidf(y)
    }
}

/// cos x for f32 (glibc `__cosf`, ARM's `cosf.c`).
pub fn cosf(y: f32) -> f32 {
    let x = y as f64;
    let abstop = (y.to_bits() >> 20) & 0x7ff;
    if abstop < ABSTOP12_PIO4 {
        if abstop < ABSTOP12_TINY {
            return 1.0;
        }
        sinf_poly(x, x * x, 0, 1)
    } else if abstop < ABSTOP12_120 {
        let (x, n) = reduce_fast(x);
        let s = sc(0, (n & 3) as usize);
        let p = if n & 2 != 0 { 1 } else { 0 };
        sinf_poly(x * s, x * x, p, n ^ 1)
    } else if abstop < ABSTOP12_INF {
        let xi = y.to_bits();
        let sign = (xi >> 31) as i32;
        let (x, n) = reduce_large(xi);
        let s = sc(0, ((n + sign) & 3) as usize);
        let p = if (n + sign) & 2 != 0 { 1 } else { 0 };
        sinf_poly(x * s, x * x, p, n ^ 1)
    } else {
        invalidf(y)
    }
}

// ---- exp

/// scale*(1+tmp) without intermediate rounding where it may overflow or underflow
/// (sbits: scale's bits, exponent possibly overflown; ki: k of the reduction).
fn exp_specialcase(tmp: f64, sbits: u64, ki: u64) -> f64 {
    if ki & 0x8000_0000 == 0 {
        // k > 0, the exponent of scale might have overflowed by <= 460.
        let scale = f64::from_bits(sbits.wrapping_sub(1009 << 52));
        return f64c(0x7f00_0000_0000_0000) * fma(scale, tmp, scale); // 0x1p1009
    }
    // k < 0, need special care in the subnormal range.
    let scale = f64::from_bits(sbits.wrapping_add(1022 << 52));
    let st = scale * tmp; // (not fused here in glibc's build: used twice)
    let mut y = scale + st;
    if y < 1.0 {
        // Round y to the right precision before scaling it into the subnormal range.
        let lo = scale - y + st;
        let hi = 1.0 + y;
        let lo = 1.0 - hi + y + lo;
        y = (hi + lo) - 1.0;
        if y == 0.0 {
            y = 0.0;
        }
    }
    f64c(0x0010_0000_0000_0000) * y // 0x1p-1022
}

/// e^x for f64 (glibc `__exp`, ARM's `exp.c`).
pub fn exp(x: f64) -> f64 {
    let top12 = |x: f64| (x.to_bits() >> 52) as u32;
    let mut abstop = top12(x) & 0x7ff;
    let tiny = 0x3c9; // top12(0x1p-54)
    if abstop.wrapping_sub(tiny) >= top12(512.0) - tiny {
        if abstop.wrapping_sub(tiny) >= 0x8000_0000 {
            // Avoid spurious underflow for tiny x.
            return 1.0 + x;
        }
        if abstop >= top12(1024.0) {
            if x.to_bits() == f64::NEG_INFINITY.to_bits() {
                return 0.0;
            }
            if abstop >= top12(f64::INFINITY) {
                return 1.0 + x;
            }
            return if x.to_bits() >> 63 != 0 { uflow(0) } else { oflow(0) };
        }
        // Large x is special cased below.
        abstop = 0;
    }
    // exp(x) = 2^(k/N) * exp(r), with exp(r) in [2^(-1/2N),2^(1/2N)].
    let kd = fma(x, EXP_INVLN2N, EXP_SHIFT);
    let ki = kd.to_bits();
    let kd = kd - EXP_SHIFT;
    let r = fma(kd, EXP_NEGLN2LON, fma(kd, EXP_NEGLN2HIN, x));
    // 2^(k/N) ~= scale * (1 + tail).
    let idx = 2 * (ki % 128) as usize;
    let top = ki << (52 - 7);
    let tail = f64::from_bits(EXP_TAB[idx]);
    let sbits = EXP_TAB[idx + 1].wrapping_add(top);
    // exp(x) = 2^(k/N) * exp(r) ~= scale + scale * (tail + exp(r) - 1).
    let c = &EXP_POLY;
    let r2 = r * r;
    let tmp = fma(c[1], r, c[0]); // C2 + r * C3
    let tmp = fma(tmp, r2, tail + r);
    let tmp = fma(r2 * r2, fma(c[3], r, c[2]), tmp); // + r2 * r2 * (C4 + r * C5)
    if abstop == 0 {
        return exp_specialcase(tmp, sbits, ki);
    }
    let scale = f64::from_bits(sbits);
    fma(scale, tmp, scale)
}

// ---- log

/// ln x for f64 (glibc `__log`, ARM's `log.c`).
pub fn log(x: f64) -> f64 {
    let mut ix = x.to_bits();
    let top = (ix >> 48) as u32;
    const LO: u64 = 0x3fee_0000_0000_0000; // 1.0 - 0x1p-4
    const HI: u64 = 0x3ff1_0900_0000_0000; // 1.0 + 0x1.09p-4
    if ix.wrapping_sub(LO) < HI - LO {
        // Handle close to 1.0 inputs separately.
        if ix == 1.0f64.to_bits() {
            return 0.0;
        }
        let b = &LOG_POLY1;
        let r = x - 1.0;
        let r2 = r * r;
        let r3 = r * r2;
        // y = r3 * (B1 + r*B2 + r2*B3 + r3*(B4 + r*B5 + r2*B6 + r3*(B7 + r*B8 + r2*B9 + r3*B10)))
        let p7 = fma(r3, b[10], fma(r2, b[9], fma(r, b[8], b[7])));
        let p4 = fma(p7, r3, fma(r2, b[6], fma(r, b[5], b[4])));
        let p1 = fma(p4, r3, fma(r2, b[3], fma(r, b[2], b[1])));
        // rhi = r + w - w with w = r * 0x1p27 (both fused).
        let two27 = f64c(0x41a0_0000_0000_0000);
        let rhi = fma(-two27, r, fma(r, two27, r));
        let rlo = r - rhi;
        let rr = rhi * rhi; // w = rr * B[0], B[0] == -0.5
        let hi = fma(rr, b[0], r);
        let lo = fma(rr, b[0], r - hi);
        let lo = fma(b[0] * rlo, rhi + r, lo);
        let y = fma(p1, r3, lo);
        return hi + y;
    }
    if top.wrapping_sub(0x0010) >= 0x7ff0 - 0x0010 {
        // x < 0x1p-1022 or inf or nan.
        if ix.wrapping_mul(2) == 0 {
            return divzero(1);
        }
        if ix == f64::INFINITY.to_bits() {
            return x;
        }
        if (top & 0x8000) != 0 || (top & 0x7ff0) == 0x7ff0 {
            return invalid(x);
        }
        // x is subnormal, normalize it.
        ix = (x * f64c(0x4330_0000_0000_0000)).to_bits(); // 0x1p52
        ix = ix.wrapping_sub(52 << 52);
    }
    // x = 2^k z; where z is in range [OFF,2*OFF) and exact.
    let tmp = ix.wrapping_sub(0x3fe6_0000_0000_0000);
    let i = ((tmp >> (52 - 7)) % 128) as usize;
    let k = ((tmp as i64) >> 52) as i32;
    let iz = ix.wrapping_sub(tmp & (0xfff << 52));
    let (invc, logc) = (f64c(LOG_TAB[2 * i]), f64c(LOG_TAB[2 * i + 1]));
    let z = f64::from_bits(iz);
    // log(x) = log1p(z/c-1) + log(c) + k*Ln2; r ~= z/c - 1, |r| < 1/(2*N).
    let r = fma(z, invc, -1.0);
    let kd = k as f64;
    // hi + lo = r + log(c) + k*Ln2.
    let w = fma(kd, LOG_LN2HI, logc);
    let hi = w + r;
    let lo = fma(kd, LOG_LN2LO, w - hi + r);
    // log(x) = lo + (log1p(r) - r) + hi.
    let a = &LOG_POLY;
    let r2 = r * r;
    let p = fma(fma(a[4], r, a[3]), r2, fma(a[2], r, a[1])); // A1 + r*A2 + r2*(A3 + r*A4)
    let y = fma(r * r2, p, fma(r2, a[0], lo));
    y + hi
}

#[cfg(test)]
mod tests {
    //! Against the C library this runs on. On x86_64 Linux with glibc 2.28 or later and a
    //! CPU with FMA (the recording's platform) there must be no difference; elsewhere the
    //! counts say how far that platform's library is from the recording. Ignored: it takes
    //! minutes (`cargo test -p xbg7-synth --release --lib -- --ignored --nocapture`).

    /// xorshift64: reproducible inputs without a dependency.
    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    fn same32(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    fn same64(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    #[ignore]
    fn every_f32_input_and_random_f64_ones_give_the_c_librarys_bits() {
        let mut differ = Vec::new();
        type F32 = (&'static str, fn(f32) -> f32, fn(f32) -> f32);
        let f32s: [F32; 5] = [
            ("sinf", super::sinf, f32::sin),
            ("cosf", super::cosf, f32::cos),
            ("expf", super::expf, f32::exp),
            ("logf", super::logf, f32::ln),
            ("powf(x, 0.6)", |x| super::powf(x, 0.6), |x| x.powf(0.6)),
        ];
        for (name, ours, libc) in f32s {
            let n = (0..=u32::MAX)
                .map(f32::from_bits)
                .filter(|&x| !same32(ours(x), libc(x)))
                .count();
            println!("{name}: {n} of 2^32 inputs differ");
            if n > 0 {
                differ.push(name);
            }
        }
        let mut s = 0x9e37_79b9_7f4a_7c15;
        let mut n = [0usize; 6];
        for _ in 0..20_000_000 {
            let r = xorshift(&mut s);
            let (x, y) = (f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32));
            n[0] += !same32(super::powf(x, y), x.powf(y)) as usize;
            // x in [0, 4), y in [-8, 8): the results that are neither 0, 1 nor inf.
            let (x, y) = (
                (r & 0xff_ffff) as f32 / 4194304.0,
                ((r >> 32) & 0xff_ffff) as f32 / 1048576.0 - 8.0,
            );
            n[1] += !same32(super::powf(x, y), x.powf(y)) as usize;
            let x = f64::from_bits(r);
            n[2] += !same64(super::exp(x), x.exp()) as usize;
            n[3] += !same64(super::log(x), x.ln()) as usize;
            // exp over [-748, 712): its overflow and subnormal cases included.
            let x = (r >> 11) as f64 / (1u64 << 53) as f64 * 1460.0 - 748.0;
            n[4] += !same64(super::exp(x), x.exp()) as usize;
            // log near 1, its own path.
            let x = 0.875 + (r >> 11) as f64 / (1u64 << 53) as f64 * 0.25;
            n[5] += !same64(super::log(x), x.ln()) as usize;
        }
        println!(
            "of 20 M random inputs: powf {} and {} (small x, y), exp {} and {} (its range), \
             log {} and {} (near 1)",
            n[0], n[1], n[2], n[4], n[3], n[5]
        );
        if n.iter().any(|&k| k > 0) {
            differ.push("random f64 / powf inputs");
        }
        assert!(differ.is_empty(), "differ from this C library: {differ:?}");
    }
}
