#pragma once
// The GLSL a run compiles: the templates embedded in the binary, or a
// directory given by --templates DIR / $VKTUNE_TEMPLATES, so a kernel author
// edits GLSL and re-tunes without rebuilding. Variant hashes cover the text
// actually used.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "harness/compiler.hpp"

namespace vktune {

inline constexpr const char* kTemplatesEnvVar = "VKTUNE_TEMPLATES";

class TemplateLibrary : public vk::IncludeResolver {
 public:
  static TemplateLibrary embedded();
  // Reads DIR/*.comp and DIR/include/*.glsl; throws Error(io) when DIR is not
  // a directory.
  static TemplateLibrary from_directory(const std::filesystem::path& dir);
  // `dir` if given, else $VKTUNE_TEMPLATES if set, else the embedded set.
  static TemplateLibrary select(const std::optional<std::string>& dir);

  // The text of a template ("matvec_q4k.comp"); throws Error(usage) naming
  // the file and where templates came from when it is missing.
  const std::string& text(const std::string& file) const;
  // Hash of the template and of the includes it reaches (#include lines,
  // followed through include/, under any condition).
  std::string content_hash(const std::string& file) const;
  const std::string& origin() const { return origin_; }  // "embedded" or the directory
  // Hash of every file of the set (names and texts): which GLSL a binary or a
  // directory holds, so a measurement can say which code it ran.
  std::string set_hash() const;
  std::size_t size() const { return files_.size(); }

  // Every include file, named relative to include/ (what an isolated worker
  // compiles with).
  std::map<std::string, std::string> includes() const;

  // IncludeResolver: names relative to include/.
  std::optional<std::string> read(const std::string& name) const override;

 private:
  TemplateLibrary(std::map<std::string, std::string> files, std::string origin);
  std::map<std::string, std::string> files_;  // path relative to templates/ -> text
  std::string origin_;
  std::map<std::string, std::string> content_hashes_;  // template -> hash of it and the includes it reaches
};

}  // namespace vktune
