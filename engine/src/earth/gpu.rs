//! Earth tiles made on the GPU, any level L0–L18. The derived levels L0–L9 (`tiles.derive`,
//! `shaders/tiles/derive.comp`) are bit for bit the tiles `Source::derive_tile` makes: the same
//! f64 operations in the same order (`earth::fmath` for the trigonometry GLSL lacks); the
//! amplified levels L10–L18 are `earth::gpu_amplify`. [`GpuTiles`] owns the ETOPO grid and its
//! relief grid on the GPU (f32, uploaded once by the first graph that declares a node) and
//! declares the nodes for a batch of jobs into any buffer of 520×520 f32 heights per job, so
//! the same nodes can later write atlas pages.

use super::derive::Source;
use super::gpu_amplify::{self, MAX_AMPLIFY_JOBS};
use crate::params::{LAST_STORED_LEVEL, TILE_STRIDE};
use crate::planet::{Body, TileId};
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};
use std::sync::atomic::{AtomicBool, Ordering};

/// Floats one job writes: 520×520 samples, aprons included.
pub const JOB_FLOATS: u64 = (TILE_STRIDE * TILE_STRIDE) as u64;
/// Most jobs in one batch: the job list travels by `vkCmdUpdateBuffer` (≤ 65,536 bytes).
pub const MAX_JOBS: usize = (65_536 - std::mem::size_of::<DeriveHeader>()) / JOB_BYTES;
const JOB_BYTES: usize = std::mem::size_of::<JobRecord>();
/// Samples per workgroup edge (`derive.comp` local size 8×8).
const GROUP: u32 = 8;

#[derive(Debug, thiserror::Error)]
pub enum GpuTilesError {
    #[error(
        "device `{device}` lacks shaderFloat64, which the GPU tile derivation (tiles.derive) \
         needs to compute the CPU's f64 samples bit for bit"
    )]
    NoFloat64 { device: String },
    #[error("{what}: {bytes} bytes exceed the device's storage-buffer range of {max} bytes")]
    TooLarge {
        what: &'static str,
        bytes: u64,
        max: u64,
    },
    #[error("a tiles.derive batch holds 1..={MAX_JOBS} jobs, not {0}")]
    BatchSize(usize),
    #[error("a batch holds at most {MAX_AMPLIFY_JOBS} amplified (L10–L18) jobs, not {0}")]
    AmplifyBatchSize(usize),
    #[error("job for {tile} writes output index {index}, beyond the {capacity} tiles of the output buffer")]
    OutputIndex {
        tile: TileId,
        index: u32,
        capacity: u64,
    },
    #[error(transparent)]
    Gpu(#[from] framegraph::Error),
}

/// One tile to derive and where its 520² heights go in the output buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeriveJob {
    pub tile: TileId,
    /// The job's heights start at float `out_index`·520².
    pub out_index: u32,
}

/// `shaders/common/earth.glsl` `Jobs` header: the grid constants, computed here with the
/// same operations as `Etopo` so the shader reads the CPU's values.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct DeriveHeader {
    lat0: f64,
    dlat: f64,
    lon0: f64,
    dlon: f64,
    texel0: f64,
    spacing_m: f64,
    nlat: i32,
    nlon: i32,
    pole_south: i32,
    pole_north: i32,
    job_count: u32,
    pad: [u32; 3],
}

/// `earth.glsl` `DeriveJob` (std430, 20 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct JobRecord {
    level: u32,
    face: u32,
    x: u32,
    y: u32,
    out_index: u32,
}

/// The ETOPO grids on the GPU and the `tiles.derive` node over them.
pub struct GpuTiles {
    etopo: GpuBuffer,
    relief: GpuBuffer,
    /// Host copies of both grids until the upload has run (`release_staging`).
    staging: Option<[GpuBuffer; 2]>,
    /// The grids' upload has been declared (an atomic so `declare` takes `&self`: a renderer
    /// declares its frame through a shared reference).
    uploaded: AtomicBool,
    header: DeriveHeader,
    body: Body,
}

impl GpuTiles {
    /// Puts `src`'s height and relief grids (f32, 37 MB each for ETOPO5) in GPU buffers; the
    /// copy itself runs in the first graph [`GpuTiles::declare`] builds.
    pub fn new(ctx: &Context, src: &Source) -> Result<GpuTiles, GpuTilesError> {
        if !ctx.info.shader_float64 {
            return Err(GpuTilesError::NoFloat64 {
                device: ctx.info.name.clone(),
            });
        }
        let e = &src.etopo;
        let bytes = (e.data.len() * 4) as u64;
        if bytes > ctx.info.max_storage_buffer_range {
            return Err(GpuTilesError::TooLarge {
                what: "the ETOPO grid",
                bytes,
                max: ctx.info.max_storage_buffer_range,
            });
        }
        let grids: [(&str, &[f32]); 2] = [
            ("tiles.derive.etopo", &e.data),
            ("tiles.derive.relief", src.relief()),
        ];
        let mut staging = Vec::with_capacity(2);
        let mut gpu = Vec::with_capacity(2);
        for (name, data) in grids {
            let mut s = GpuBuffer::new(ctx, &format!("{name}.staging"), BufferDesc::upload(bytes))?;
            s.write(0, bytemuck::cast_slice(data))?;
            staging.push(s);
            gpu.push(GpuBuffer::new(ctx, name, BufferDesc::gpu(bytes))?);
        }
        // Rows beyond a pole reflect to round((±180 − 2·lat0)/dlat) − r (Etopo::node_index).
        let pole = |p: f64| ((p - 2.0 * e.lat0) / e.dlat).round() as i32;
        let header = DeriveHeader {
            lat0: e.lat0,
            dlat: e.dlat,
            lon0: e.lon0,
            dlon: e.dlon,
            texel0: src.body.texel0(),
            spacing_m: src.spacing_m(),
            nlat: e.nlat as i32,
            nlon: e.nlon as i32,
            pole_south: pole(-180.0),
            pole_north: pole(180.0),
            job_count: 0,
            pad: [0; 3],
        };
        let [relief, etopo] = [gpu.pop(), gpu.pop()].map(|b| b.expect("two grids"));
        let [s_relief, s_etopo] = [staging.pop(), staging.pop()].map(|b| b.expect("two grids"));
        Ok(GpuTiles {
            etopo,
            relief,
            staging: Some([s_etopo, s_relief]),
            uploaded: AtomicBool::new(false),
            header,
            body: src.body,
        })
    }

    /// Whether a graph has declared the grids' upload (`tiles.derive.upload`).
    pub fn grids_uploaded(&self) -> bool {
        self.uploaded.load(Ordering::Relaxed)
    }

    /// GPU bytes the grids hold (staging excluded).
    pub fn bytes(&self) -> u64 {
        self.etopo.desc.size + self.relief.desc.size
    }

    /// Declares the nodes that make `jobs` (any levels) into `out` (f32, [`JOB_FLOATS`] per
    /// output index; the caller sizes it), in this order: `tiles.derive.upload` (the grids,
    /// the first time only); for the derived jobs `tiles.derive.jobs` (the job list) and
    /// `tiles.derive` (65×65 workgroups of 8×8 samples per job); for the amplified jobs the
    /// passes of `gpu_amplify::record`.
    pub fn declare(
        &self,
        g: &mut Graph<'_>,
        jobs: &[DeriveJob],
        out: &mut BufferRef,
        out_capacity: u64,
    ) -> Result<(), GpuTilesError> {
        if jobs.is_empty() || jobs.len() > MAX_JOBS {
            return Err(GpuTilesError::BatchSize(jobs.len()));
        }
        if let Some(j) = jobs.iter().find(|j| j.out_index as u64 >= out_capacity) {
            return Err(GpuTilesError::OutputIndex {
                tile: j.tile,
                index: j.out_index,
                capacity: out_capacity,
            });
        }
        let (derived, amplified): (Vec<DeriveJob>, Vec<DeriveJob>) =
            jobs.iter().partition(|j| j.tile.level <= LAST_STORED_LEVEL);
        if amplified.len() > MAX_AMPLIFY_JOBS {
            return Err(GpuTilesError::AmplifyBatchSize(amplified.len()));
        }
        let mut etopo = g.import_buffer(&self.etopo);
        let mut relief = g.import_buffer(&self.relief);
        if !self.uploaded.swap(true, Ordering::Relaxed) {
            let [se, sr] = self.staging.as_ref().expect("staging kept until uploaded");
            let (se, sr) = (g.import_buffer(se), g.import_buffer(sr));
            let size = self.etopo.desc.size;
            g.transfer("tiles.derive.upload")
                .copy_buffer(se, &mut etopo, 0, 0, size)
                .copy_buffer(sr, &mut relief, 0, 0, size);
        }
        if !derived.is_empty() {
            let list = self.job_list(g, "tiles.derive.jobs", &derived);
            let groups = TILE_STRIDE.div_ceil(GROUP);
            g.compute("tiles.derive", &shaders::TILES_DERIVE)
                .read("etopo", etopo)
                .read("relief", relief)
                .read("batch", list)
                .write("heights", out)
                .dispatch([groups, groups, derived.len() as u32]);
        }
        if !amplified.is_empty() {
            let list = self.job_list(g, "tiles.amplify.jobs", &amplified);
            let grids = gpu_amplify::Grids {
                etopo,
                relief,
                list,
            };
            gpu_amplify::record(g, grids, amplified.len() as u32, self.body, out);
        }
        Ok(())
    }

    /// The batch header and job records (`earth.glsl` `Jobs`), as a buffer filled by a
    /// transfer node named `name`.
    fn job_list(&self, g: &mut Graph<'_>, name: &str, jobs: &[DeriveJob]) -> BufferRef {
        let header = DeriveHeader {
            job_count: jobs.len() as u32,
            ..self.header
        };
        let mut bytes = bytemuck::bytes_of(&header).to_vec();
        for j in jobs {
            let rec = JobRecord {
                level: j.tile.level as u32,
                face: j.tile.face.0 as u32,
                x: j.tile.x,
                y: j.tile.y,
                out_index: j.out_index,
            };
            bytes.extend_from_slice(bytemuck::bytes_of(&rec));
        }
        // vkCmdUpdateBuffer takes whole words; the records are 20 bytes, so this is a no-op
        // kept for the invariant.
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        let mut list = g.create_buffer(name, BufferDesc::gpu(bytes.len() as u64));
        g.transfer(name).update(&mut list, 0, &bytes);
        list
    }

    /// Frees the host copies of the grids; call once a frame with the upload has completed.
    pub fn release_staging(&mut self, ctx: &Context) {
        if self.uploaded.load(Ordering::Relaxed) {
            if let Some(s) = self.staging.take() {
                s.into_iter().for_each(|b| b.destroy(ctx));
            }
        }
    }

    pub fn destroy(self, ctx: &Context) {
        let staging = self.staging.into_iter().flatten();
        for b in [self.etopo, self.relief].into_iter().chain(staging) {
            b.destroy(ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records match `shaders/common/earth.glsl` (std430: 6 doubles, 8 words; 5 words).
    #[test]
    fn records_match_the_shader_layout() {
        assert_eq!(std::mem::size_of::<DeriveHeader>(), 80);
        assert_eq!(std::mem::offset_of!(DeriveHeader, nlat), 48);
        assert_eq!(std::mem::offset_of!(DeriveHeader, job_count), 64);
        assert_eq!(JOB_BYTES, 20);
        assert_eq!(MAX_JOBS, 3272);
    }
}
