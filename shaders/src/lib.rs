//! Planetfall's shaders, compiled from GLSL at build time (see `build.rs`) and embedded.
//! One static per shader file; the static's name is the node name in capitals.

use framegraph::shader::{Shader, ShaderStage};

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
