//! Shaders as the graph sees them: embedded SPIR-V plus what rspirv reflects from it
//! (descriptor bindings by name, push-constant size, workgroup size).
//!
//! Bindings are matched **by name** (the GLSL block instance or image variable name), never by
//! declaration order: a node that binds a name the shader does not use, or misses one it does,
//! fails `Graph::compile` with the node's and the binding's names.
//!
//! Holds [`Shader`], [`ShaderStage`], and the reflection: [`Reflection`], [`Binding`],
//! [`BindingKind`].

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Dim, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    Compute,
    Vertex,
    Fragment,
}

/// A compiled shader embedded in the binary (see the `shaders` crate).
pub struct Shader {
    /// Dotted name, equal to the node family it serves (`cbt.decide`).
    pub name: &'static str,
    /// Source path relative to `shaders/`, for messages.
    pub path: &'static str,
    pub stage: ShaderStage,
    spirv: &'static [u8],
    reflection: OnceLock<Result<Reflection, String>>,
}

impl std::fmt::Debug for Shader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shader({} {:?} {})", self.name, self.stage, self.path)
    }
}

impl Shader {
    pub const fn new(
        name: &'static str,
        path: &'static str,
        stage: ShaderStage,
        spirv: &'static [u8],
    ) -> Shader {
        Shader {
            name,
            path,
            stage,
            spirv,
            reflection: OnceLock::new(),
        }
    }

    /// SPIR-V words (copied out of the byte blob; alignment of `include_bytes!` is 1).
    /// Bytes of SPIR-V: what a driver compiles, so a rough measure of what building the
    /// pipeline costs.
    pub fn spirv_len(&self) -> usize {
        self.spirv.len()
    }

    pub fn words(&self) -> Vec<u32> {
        self.spirv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Reflection, computed once.
    pub fn reflect(&self) -> Result<&Reflection, String> {
        self.reflection
            .get_or_init(|| {
                Reflection::from_words(&self.words()).map_err(|e| format!("{}: {e}", self.path))
            })
            .as_ref()
            .map_err(|e| e.clone())
    }

    /// Identity for caches: shaders are statics, so the address is unique.
    pub fn id(&self) -> usize {
        self as *const Shader as usize
    }
}

/// What a descriptor binding is, as the shader declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    StorageBuffer,
    UniformBuffer,
    StorageImage,
    SampledImage,
    CombinedImageSampler,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub name: String,
    pub set: u32,
    pub binding: u32,
    pub kind: BindingKind,
    /// Declared `readonly` (every member NonWritable for buffers, the variable for images).
    pub read_only: bool,
    /// Array length (1 for non-arrays).
    pub count: u32,
    /// For images: the image dimensionality (2D, 3D, ...), and whether arrayed.
    pub image_dim: Option<(Dim, bool)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reflection {
    pub entry_point: String,
    /// Bindings actually referenced by the entry point, sorted by (set, binding).
    pub bindings: Vec<Binding>,
    /// Push-constant block size in bytes (0 if none).
    pub push_constant_size: u32,
    /// Compute workgroup size.
    pub local_size: [u32; 3],
}

impl Reflection {
    pub fn binding(&self, name: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.name == name)
    }

    pub fn from_words(words: &[u32]) -> Result<Reflection, String> {
        let words = strip_source_text(words);
        let module = rspirv::dr::load_words(&words).map_err(|e| format!("invalid SPIR-V: {e}"))?;
        let mut names: HashMap<u32, String> = HashMap::new();
        for i in &module.debug_names {
            if i.class.opcode == Op::Name {
                if let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                    (i.operands.first(), i.operands.get(1))
                {
                    names.insert(*id, s.clone());
                }
            }
        }
        // Decorations.
        let mut set_of: HashMap<u32, u32> = HashMap::new();
        let mut binding_of: HashMap<u32, u32> = HashMap::new();
        let mut non_writable: HashMap<u32, bool> = HashMap::new();
        let mut block: HashMap<u32, Decoration> = HashMap::new();
        let mut member_nw: HashMap<u32, (u32, u32)> = HashMap::new(); // struct -> (members NW, max member)
        let mut member_offsets: HashMap<(u32, u32), u32> = HashMap::new();
        let mut array_stride: HashMap<u32, u32> = HashMap::new();
        for a in &module.annotations {
            match a.class.opcode {
                Op::Decorate => {
                    let target = id_at(a, 0);
                    match a.operands.get(1) {
                        Some(Operand::Decoration(Decoration::DescriptorSet)) => {
                            set_of.insert(target, lit_at(a, 2));
                        }
                        Some(Operand::Decoration(Decoration::Binding)) => {
                            binding_of.insert(target, lit_at(a, 2));
                        }
                        Some(Operand::Decoration(Decoration::NonWritable)) => {
                            non_writable.insert(target, true);
                        }
                        Some(Operand::Decoration(
                            d @ (Decoration::Block | Decoration::BufferBlock),
                        )) => {
                            block.insert(target, *d);
                        }
                        Some(Operand::Decoration(Decoration::ArrayStride)) => {
                            array_stride.insert(target, lit_at(a, 2));
                        }
                        _ => {}
                    }
                }
                Op::MemberDecorate => {
                    let target = id_at(a, 0);
                    let member = lit_at(a, 1);
                    match a.operands.get(2) {
                        Some(Operand::Decoration(Decoration::NonWritable)) => {
                            let e = member_nw.entry(target).or_insert((0, 0));
                            e.0 += 1;
                            e.1 = e.1.max(member + 1);
                        }
                        Some(Operand::Decoration(Decoration::Offset)) => {
                            member_offsets.insert((target, member), lit_at(a, 3));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let types: HashMap<u32, &Instruction> = module
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id.map(|id| (id, i)))
            .collect();

        let (entry_point, interface) = module
            .entry_points
            .first()
            .map(|ep| {
                let name = match ep.operands.get(2) {
                    Some(Operand::LiteralString(s)) => s.clone(),
                    _ => String::new(),
                };
                let iface: Vec<u32> = ep.operands[3..]
                    .iter()
                    .filter_map(|o| {
                        if let Operand::IdRef(id) = o {
                            Some(*id)
                        } else {
                            None
                        }
                    })
                    .collect();
                let _model = match ep.operands.first() {
                    Some(Operand::ExecutionModel(m)) => *m,
                    _ => ExecutionModel::GLCompute,
                };
                (name, iface)
            })
            .ok_or("no entry point")?;

        let mut local_size = [1, 1, 1];
        for m in &module.execution_modes {
            if let Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) = m.operands.get(1) {
                local_size = [lit_at(m, 2), lit_at(m, 3), lit_at(m, 4)];
            }
        }

        // Ids referenced by any instruction inside a function body.
        let mut used: std::collections::HashSet<u32> = std::collections::HashSet::new();
        for f in &module.functions {
            for block in &f.blocks {
                for inst in &block.instructions {
                    for o in &inst.operands {
                        if let Operand::IdRef(id) = o {
                            used.insert(*id);
                        }
                    }
                }
            }
        }
        let mut bindings = Vec::new();
        let mut push_constant_size = 0;
        for v in &module.types_global_values {
            if v.class.opcode != Op::Variable {
                continue;
            }
            let id = v.result_id.unwrap_or(0);
            // Only globals the code statically uses: the interface list of an unoptimised
            // module also names globals that merely come with an include.
            if !interface.contains(&id) || !used.contains(&id) {
                continue;
            }
            let storage = match v.operands.first() {
                Some(Operand::StorageClass(s)) => *s,
                _ => continue,
            };
            let pointee = pointee(&types, v.result_type.unwrap_or(0));
            if storage == StorageClass::PushConstant {
                push_constant_size = type_size(&types, &member_offsets, &array_stride, pointee);
                continue;
            }
            if !matches!(
                storage,
                StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::UniformConstant
            ) {
                continue;
            }
            let (Some(&set), Some(&binding)) = (set_of.get(&id), binding_of.get(&id)) else {
                continue;
            };
            // Unwrap arrays of descriptors.
            let (elem, count) = match types.get(&pointee) {
                Some(t) if t.class.opcode == Op::TypeArray => {
                    let len = constant_u32(&types, id_at(t, 1)).unwrap_or(1);
                    (id_at(t, 0), len)
                }
                Some(t) if t.class.opcode == Op::TypeRuntimeArray => (id_at(t, 0), 0),
                _ => (pointee, 1),
            };
            let t = types.get(&elem).ok_or("dangling type")?;
            let mut image_dim = None;
            let (kind, read_only) = match t.class.opcode {
                Op::TypeStruct => {
                    let members = t.operands.len() as u32;
                    let nw = member_nw.get(&elem).map(|m| m.0).unwrap_or(0);
                    let ro = nw >= members || non_writable.contains_key(&id);
                    if storage == StorageClass::StorageBuffer
                        || block.get(&elem) == Some(&Decoration::BufferBlock)
                    {
                        (BindingKind::StorageBuffer, ro)
                    } else {
                        (BindingKind::UniformBuffer, true)
                    }
                }
                Op::TypeImage => {
                    let dim = match t.operands.get(1) {
                        Some(Operand::Dim(d)) => *d,
                        _ => Dim::Dim2D,
                    };
                    let arrayed = lit_at(t, 3) == 1;
                    image_dim = Some((dim, arrayed));
                    if lit_at(t, 5) == 2 {
                        (BindingKind::StorageImage, non_writable.contains_key(&id))
                    } else {
                        (BindingKind::SampledImage, true)
                    }
                }
                Op::TypeSampledImage => {
                    if let Some(img) = types.get(&id_at(t, 0)) {
                        let dim = match img.operands.get(1) {
                            Some(Operand::Dim(d)) => *d,
                            _ => Dim::Dim2D,
                        };
                        image_dim = Some((dim, lit_at(img, 3) == 1));
                    }
                    (BindingKind::CombinedImageSampler, true)
                }
                _ => continue,
            };
            // Name: the instance name, else the block type's name.
            let name = names
                .get(&id)
                .filter(|s| !s.is_empty())
                .or_else(|| names.get(&elem))
                .cloned()
                .unwrap_or_else(|| format!("set{set}_binding{binding}"));
            bindings.push(Binding {
                name,
                set,
                binding,
                kind,
                read_only,
                count,
                image_dim,
            });
        }
        bindings.sort_by_key(|b| (b.set, b.binding));
        Ok(Reflection {
            entry_point,
            bindings,
            push_constant_size,
            local_size,
        })
    }
}

/// Drop OpSource/OpSourceContinued: glslc splits embedded source text at byte boundaries,
/// which can cut a UTF-8 character in two and makes rspirv refuse the module. Reflection
/// needs none of it (the driver and RenderDoc still get the full module).
pub fn strip_source_text(words: &[u32]) -> Vec<u32> {
    const OP_SOURCE_CONTINUED: u32 = 2;
    const OP_SOURCE: u32 = 3;
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..words.len().min(5)]);
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            out.extend_from_slice(&words[i..]);
            break;
        }
        if op != OP_SOURCE && op != OP_SOURCE_CONTINUED {
            out.extend_from_slice(&words[i..i + count]);
        }
        i += count;
    }
    out
}

fn id_at(i: &Instruction, n: usize) -> u32 {
    match i.operands.get(n) {
        Some(Operand::IdRef(id)) => *id,
        _ => 0,
    }
}

fn lit_at(i: &Instruction, n: usize) -> u32 {
    match i.operands.get(n) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    }
}

fn pointee(types: &HashMap<u32, &Instruction>, ptr: u32) -> u32 {
    match types.get(&ptr) {
        Some(t) if t.class.opcode == Op::TypePointer => id_at(t, 1),
        _ => ptr,
    }
}

fn constant_u32(types: &HashMap<u32, &Instruction>, id: u32) -> Option<u32> {
    let c = types.get(&id)?;
    (c.class.opcode == Op::Constant).then(|| lit_at(c, 0))
}

/// Byte size of a type laid out with explicit offsets/strides (push-constant blocks).
fn type_size(
    types: &HashMap<u32, &Instruction>,
    offsets: &HashMap<(u32, u32), u32>,
    strides: &HashMap<u32, u32>,
    id: u32,
) -> u32 {
    let Some(t) = types.get(&id) else { return 0 };
    match t.class.opcode {
        Op::TypeInt | Op::TypeFloat => lit_at(t, 0) / 8,
        Op::TypeBool => 4,
        Op::TypeVector | Op::TypeMatrix => {
            type_size(types, offsets, strides, id_at(t, 0)) * lit_at(t, 1)
        }
        Op::TypeArray => {
            let len = constant_u32(types, id_at(t, 1)).unwrap_or(1);
            let stride = strides
                .get(&id)
                .copied()
                .unwrap_or_else(|| type_size(types, offsets, strides, id_at(t, 0)));
            stride * len
        }
        Op::TypeStruct => (0..t.operands.len() as u32)
            .map(|m| {
                let off = offsets.get(&(id, m)).copied().unwrap_or(0);
                off + type_size(types, offsets, strides, id_at(t, m as usize))
            })
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}
