#include "cli/spec_skeleton.hpp"

#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "engine/template_library.hpp"
#include "harness/compiler.hpp"
#include "harness/shader_interface.hpp"
#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_starter.hpp"

namespace vktune::cli {

namespace {

using Json = nlohmann::ordered_json;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::usage, "spec init --from: cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An #include beside the shader, else in the `include/` folder beside the
// shader's folder, else among vktune's own (templates/include/): where a
// spec's templates find theirs.
class SpecFolderIncludes : public vk::IncludeResolver {
 public:
  explicit SpecFolderIncludes(const std::filesystem::path& folder)
      : beside_(folder.string()), shared_((folder / ".." / "include").string()),
        own_(TemplateLibrary::embedded().includes()) {}
  std::optional<std::string> read(const std::string& name) const override {
    if (auto text = beside_.read(name)) return text;
    if (auto text = shared_.read(name)) return text;
    return own_.read(name);
  }

 private:
  vk::DirectoryIncludes beside_, shared_;
  vk::MapIncludes own_;
};

// A define's value as a parameter's: a whole number a spec parameter holds.
std::optional<std::int64_t> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::size_t at = text[0] == '-' ? 1 : 0;
  if (at == text.size()) return std::nullopt;
  for (std::size_t i = at; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  return std::stoll(text);
}

// Bytes of one value of a spec buffer type.
int type_bytes(const std::string& type) { return type == "f16" ? 2 : type == "i8" || type == "u8" ? 1 : 4; }

// A uniform buffer's entry: each member by its name and std140 type, with a
// placeholder value (integers `n`, floats 1.0) as the push words get. A
// member the format cannot declare (a matrix, an array, a struct, a 16- or
// 8-bit scalar), or one at another offset than std140 puts it, is one line.
Json uniform_entry(const vk::InterfaceBinding& b, const std::filesystem::path& shader) {
  const auto refuse = [&](const vk::BlockMember& m, const std::string& why) {
    throw Error(ErrorKind::usage, "spec init --from: " + shader.string() + ": binding " + std::to_string(b.binding) +
                                      ", a uniform buffer: member " + (m.name.empty() ? "at byte " + std::to_string(m.offset)
                                                                                       : "'" + m.name + "'") +
                                      " " + why);
  };
  Json members = Json::array();
  std::uint32_t end = 0;
  for (std::size_t i = 0; i < b.members.size(); ++i) {
    const auto& m = b.members[i];
    if (m.type != "f32" && m.type != "u32" && m.type != "i32") {
      refuse(m, "is not a 32-bit scalar or vector (a spec's uniform members are u32, i32, f32 and their vec2-vec4)");
    }
    const std::string prefix = m.type == "f32" ? "" : m.type == "u32" ? "u" : "i";
    const std::string type = m.lanes == 1 ? m.type : prefix + "vec" + std::to_string(m.lanes);
    const std::uint32_t align = m.lanes == 1 ? 4 : m.lanes == 2 ? 8 : 16;
    if (m.offset != (end + align - 1) / align * align) refuse(m, "is not at its std140 offset");
    end = m.offset + 4 * m.lanes;
    const Json lane = m.type == "f32" ? Json(1.0) : Json("n");
    Json value = lane;
    if (m.lanes > 1) value = Json::array();
    for (std::uint32_t l = 0; m.lanes > 1 && l < m.lanes; ++l) value.push_back(lane);
    members.push_back({{"name", m.name.empty() ? "member" + std::to_string(i) : m.name}, {"type", type}, {"value", value}});
  }
  return {{"name", b.name.empty() ? "binding" + std::to_string(b.binding) : b.name},
          {"binding", b.binding},
          {"role", "uniform"},
          {"members", members}};
}

// An image's entry (a storage image, or a combined image sampler: a
// sampler2D/3D): its kind, dimensions and (storage) format from the shader,
// a channels-packed tensor of 4 channels, one row and n columns (a start to
// edit: the interface does not say the tensor), the first written storage
// image the output. Another dimensionality, an arrayed image, or a format
// the spec format lacks is one line.
Json image_entry(const vk::InterfaceBinding& b, const std::filesystem::path& shader, bool& output) {
  const auto refuse = [&](const std::string& why) {
    throw Error(ErrorKind::usage, "spec init --from: " + shader.string() + ": binding " + std::to_string(b.binding) +
                                      ", a " + b.kind + ", " + why);
  };
  if ((b.image_dims != 2 && b.image_dims != 3) || b.image_arrayed) {
    refuse("is not a 2-D or 3-D image (a spec's images are image2D/image3D, sampler2D/sampler3D)");
  }
  const bool sampled = b.kind == "sampled image";
  // A sampled image's format is the host's choice; a storage image declares its own.
  const std::string format = sampled ? "rgba32f" : b.image_format;
  if (!vk::format_from_name(format)) refuse("has format '" + format + "' (a spec's images are rgba32f or rgba16f)");
  std::string role = "input";
  if (!sampled && b.writable) role = output ? "input" : "output";
  output = output || role == "output";
  return {{"name", b.name.empty() ? "binding" + std::to_string(b.binding) : b.name},
          {"binding", b.binding},
          {"role", role},
          {"image",
           {{"kind", sampled ? "sampled" : "storage"},
            {"dims", b.image_dims},
            {"format", format},
            {"tensor", Json::array({4, 1, "n"})}}}};
}

}  // namespace

std::filesystem::path write_spec_from_shader(const std::string& name, const std::filesystem::path& shader,
                                             const std::vector<std::pair<std::string, std::string>>& defines) {
  kernels::spec::require_kernel_name(name);
  const auto folder = shader.has_parent_path() ? shader.parent_path() : std::filesystem::path(".");
  const auto spec_path = folder / (name + ".json");
  if (std::filesystem::exists(spec_path)) throw Error(ErrorKind::usage, "spec init: " + spec_path.string() + " already exists");

  // Unoptimized, so that the module keeps the names the skeleton uses.
  vk::CompileOptions options;
  options.optimize = false;
  options.defines = defines;
  std::vector<std::uint32_t> spirv;
  try {
    spirv = vk::compile_compute_shader({shader.filename().string(), read_text(shader)}, SpecFolderIncludes(folder),
                                       options);
  } catch (const Error& e) {
    // glslang's first error, not the heading above it.
    const std::string text = e.what();
    const auto at = text.find(": error:");
    const auto start = at == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    const auto first = text.substr(start, text.find('\n', start) - start);
    throw Error(ErrorKind::usage, "spec init --from: " + shader.string() +
                                      (defines.empty() ? " does not compile as written" : " does not compile with those -D defines") +
                                      " (give every #define it needs with -D NAME=VALUE, or a default under #ifndef, "
                                      "or make it a constant): " + first);
  }
  std::string unread;
  const auto interface = vk::reflect_interface(spirv, unread);
  if (!interface) throw Error(ErrorKind::usage, "spec init --from: " + shader.string() + ": " + unread);

  // A shader may declare one binding several times, as views of one
  // buffer (a scalar and a vector array): one buffer each, typed by its
  // scalar view, written if any view is.
  std::vector<vk::InterfaceBinding> views;
  for (const auto& b : interface->bindings) {
    if (!views.empty() && views.back().set == b.set && views.back().binding == b.binding) {
      auto& kept = views.back();
      if (kept.lanes != 1 && b.lanes == 1) kept.element = b.element, kept.lanes = 1, kept.name = b.name;
      kept.writable = kept.writable || b.writable;
      continue;
    }
    views.push_back(b);
  }
  Json buffers = Json::array();
  bool output = false, images = false;
  std::string bytes;
  for (const auto& b : views) {
    if (b.set == 0 && b.kind == "uniform buffer") {
      buffers.push_back(uniform_entry(b, shader));
      continue;
    }
    if (b.set == 0 && (b.kind == "storage image" || b.kind == "sampled image")) {
      buffers.push_back(image_entry(b, shader, output));
      images = true;
      const bool sampled = b.kind == "sampled image";
      const int texel = !sampled && b.image_format == "rgba16f" ? 8 : 16;
      bytes += (bytes.empty() ? "" : " + ") + std::to_string(texel) + " * n";
      continue;
    }
    if (b.set != 0 || b.kind != "storage buffer") {
      throw Error(ErrorKind::usage, "spec init --from: " + shader.string() + " uses binding " + std::to_string(b.binding) +
                                        (b.set == 0 ? "" : " of set " + std::to_string(b.set)) + ", a " + b.kind +
                                        ": a spec binds storage and uniform buffers, storage images and sampled textures of set 0");
    }
    const auto type = b.element.empty() || b.element == "u8" ? std::string("u32") : b.element;
    const std::string role = !b.writable ? "input" : output ? "scratch" : "output";
    output = output || role == "output";
    const std::string size = b.lanes == 1 ? "n" : std::to_string(b.lanes) + " * n";
    buffers.push_back({{"name", b.name.empty() ? "binding" + std::to_string(b.binding) : b.name},
                       {"binding", b.binding},
                       {"type", type},
                       {"size", size},
                       {"role", role}});
    bytes += (bytes.empty() ? "" : " + ") + std::to_string(type_bytes(type) * static_cast<int>(b.lanes)) + " * n";
  }
  if (buffers.empty() || !output) {
    throw Error(ErrorKind::usage, "spec init --from: " + shader.string() +
                                      " writes no storage buffer or storage image: a spec needs one output");
  }
  Json parameters = Json::array(), baseline = Json::object();
  std::array<std::string, 3> local{std::to_string(interface->local_size[0]), std::to_string(interface->local_size[1]),
                                   std::to_string(interface->local_size[2])};
  for (const auto& c : interface->constants) {
    if (c.type != "i32" && c.type != "u32") continue;  // parameters from integer defaults only, as before
    std::string pname = c.name.empty() ? "C" + std::to_string(c.constant_id) : c.name;
    for (unsigned d = 0; d < 3; ++d) {  // local_size_x_id and its kin have no name in GLSL
      if (c.name.empty() && interface->local_size_constant[d] == c.constant_id) pname = std::string("LOCAL_SIZE_") + "XYZ"[d];
    }
    Json values = Json::array({c.value});
    for (unsigned d = 0; d < 3; ++d) {
      if (interface->local_size_constant[d] != c.constant_id) continue;
      local[d] = pname;
      if (d == 0) {
        for (const std::int64_t size : {32, 64, 128, 256})
          if (size != c.value) values.push_back(size);
      }
    }
    parameters.push_back({{"name", pname}, {"values", values}, {"constant_id", c.constant_id}});
    baseline[pname] = c.value;
  }
  Json fixed = Json::object();
  for (const auto& [define, value] : defines) {
    // PATH selects a spec's sub-space, so it stays a fixed define here.
    if (const auto v = whole_number(value); v && define != kernels::spec::kPathParameter) {
      parameters.push_back({{"name", define}, {"values", Json::array({*v})}});
      baseline[define] = *v;
    } else {
      fixed[define] = value;
    }
  }
  Json push = Json::array();
  for (const auto& w : interface->push_words) {
    // A u32 or i32 word is a count of the shape; an f32 one a number.
    Json word = {{"name", w.name.empty() ? "word" + std::to_string(w.offset / 4) : w.name},
                 {"value", w.type == "f32" ? "1.0" : "n"}};
    if (w.type == "f32" || w.type == "i32") word["type"] = w.type;
    push.push_back(std::move(word));
  }
  Json spec = {
      {"name", name},
      {"description", shader.filename().string() + " as written (vktune spec init --from)"},
      {"shape", {"n"}},
      // An image's extent is capped (maxImageDimension3D may be as low as 256): n columns of 1024 fit most devices.
      {"default_shapes", {{images ? 1024 : 1048576}}},
      {"check_shapes", {{1000}}},
      {"subspaces",
       {{{"name", "as_written"},
         {"template", shader.filename().string()},
         {"parameters", parameters},
         {"baseline", baseline},
         {"defines", fixed},
         {"local_size", {local[0], local[1], local[2]}},
         {"stages", {{{"workgroups", {{{"dim", "n"}, {"per_workgroup", local[0]}}, 1, 1}}}}}}}},
      {"buffers", buffers},
      {"push_constants", push},
      {"metrics", {{"bytes", bytes}, {"flops", "n"}}},
      {"reference", {{"config", Json::object()}}},
      {"tolerance", {{"rel_l2", 1e-6}, {"max_rel", 1e-6}}}};
  std::ofstream out(spec_path, std::ios::binary);
  out << "// Written by `vktune spec init " << name << " --from " << shader.filename().string()
      << "` from the shader's interface (docs/SPEC_FORMAT.md).\n"
         "// Edit what the interface cannot say: each buffer's size (every one is n values here), the\n"
         "// shapes, the workgroups (one per local_size.x values of n), the push words' values (u32/i32: n;\n"
         "// f32: 1.0) and the tolerance. The reference is the shader as written\n"
         "// (its constants' defaults, the baseline): every variant is compared with it.\n"
      << spec.dump(2) << "\n";
  out.close();
  if (!out) throw Error(ErrorKind::io, "spec init: cannot write " + spec_path.string());
  return spec_path;
}

}  // namespace vktune::cli
