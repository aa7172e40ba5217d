#pragma once
// Why a config may not run: the id of the rule it breaks and the detail a
// person reads. An id is short, stable and dotted ("workgroup.max_invocations",
// "matvec.pass_width"; a kernel spec's rules keep their own names), declared
// once as a RuleId beside the check that applies it; `vktune list --device`
// counts the illegal configs of a space by it. The detail is the sentence
// for this config ("workgroup of 2048 invocations exceeds
// maxComputeWorkGroupInvocations of 1024"), what messages print.
#include <string>
#include <string_view>
#include <utility>

namespace vktune {

struct Violation {
  std::string rule;    // the broken rule's id; "" = none: the config may run
  std::string detail;  // one line for a person
  bool empty() const { return rule.empty(); }
};

// A rule's id, declared once: rule("detail") is a violation of it.
class RuleId {
 public:
  constexpr explicit RuleId(std::string_view id) : id_(id) {}
  constexpr std::string_view id() const { return id_; }
  Violation operator()(std::string detail) const { return {std::string(id_), std::move(detail)}; }

 private:
  std::string_view id_;
};

}  // namespace vktune
