//! What the driver says of each pipeline it compiled (VK_KHR_pipeline_executable_properties):
//! per executable (a shader stage, or a driver's own split of one), statistics such as
//! registers per thread, shared and local memory, spills and instruction counts. Which
//! statistics there are, and their names, are the driver's; they explain a node's occupancy
//! where its GPU time alone cannot. Captured only when the context asked for them
//! (`ContextOptions::pipeline_statistics`): capturing may cost compile time.

use ash::vk;
use std::ffi::c_char;

/// One statistic's value, in the format the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StatValue {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
}

impl std::fmt::Display for StatValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatValue::Bool(b) => write!(f, "{b}"),
            StatValue::Int(v) => write!(f, "{v}"),
            StatValue::Uint(v) => write!(f, "{v}"),
            StatValue::Float(v) => write!(f, "{v:.3}"),
        }
    }
}

/// One executable of a pipeline and its statistics, in the driver's order.
#[derive(Clone, Debug)]
pub struct Executable {
    /// The driver's name for it (e.g. "Compute Shader").
    pub name: String,
    pub stages: vk::ShaderStageFlags,
    /// Subgroup size it was compiled for (0: not reported).
    pub subgroup_size: u32,
    pub stats: Vec<(String, StatValue)>,
}

/// A pipeline's executables, under the pipeline's name (the shader's, `vs + fs` for raster).
#[derive(Clone, Debug)]
pub struct PipelineStats {
    pub pipeline: String,
    pub executables: Vec<Executable>,
}

fn text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// The executables of `pipeline` with their statistics. A query the driver fails is logged
/// and gives what was read before it: statistics are an aid, never a reason to stop.
pub(crate) fn query(
    ext: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
    name: &str,
) -> PipelineStats {
    let mut out = PipelineStats {
        pipeline: name.to_string(),
        executables: Vec::new(),
    };
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    let props = match unsafe { ext.get_pipeline_executable_properties(&info) } {
        Ok(p) => p,
        Err(e) => {
            log::warn!("vkGetPipelineExecutablePropertiesKHR({name}): {e}");
            return out;
        }
    };
    for (i, p) in props.iter().enumerate() {
        let exe = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(i as u32);
        let stats = match unsafe { ext.get_pipeline_executable_statistics(&exe) } {
            Ok(s) => s,
            Err(e) => {
                log::warn!("vkGetPipelineExecutableStatisticsKHR({name}, {i}): {e}");
                Vec::new()
            }
        };
        out.executables.push(Executable {
            name: text(&p.name),
            stages: p.stages,
            subgroup_size: p.subgroup_size,
            stats: stats
                .iter()
                .map(|s| {
                    let v = unsafe {
                        match s.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                StatValue::Bool(s.value.b32 != 0)
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                StatValue::Int(s.value.i64)
                            }
                            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                                StatValue::Float(s.value.f64)
                            }
                            _ => StatValue::Uint(s.value.u64),
                        }
                    };
                    (text(&s.name), v)
                })
                .collect(),
        });
    }
    out
}
