#pragma once
// The GLSL templates compiled into the binary (see templates/embed.cmake).
#include <map>
#include <string>

namespace vktune::templates {

// Path relative to templates/ -> file text. Includes are under "include/".
const std::map<std::string, std::string>& embedded_files();

}  // namespace vktune::templates
