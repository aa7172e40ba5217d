#pragma once
// The MobileNet V2 example specs built into vktune (examples/mobilenet_*/,
// written by templates/embed.cmake), so that `vktune mobilenet` works from a
// binary copied alone to another machine.
#include <map>
#include <string>

namespace vktune::vision {

// Path relative to examples/ ("mobilenet_stem/stem.json") -> file text.
const std::map<std::string, std::string>& embedded_files();

}  // namespace vktune::vision
