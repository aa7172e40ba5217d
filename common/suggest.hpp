#pragma once
// "Did you mean": the name a mistyped word was most likely meant to be.
#include <string>
#include <vector>

namespace vktune {

// The candidate closest to `word` in edit distance (insertions, deletions,
// substitutions and swaps of two neighbours, each 1), if it is close enough
// to be a typo: at most 1 edit for words of up to 4 characters, else at most
// a third of the word's length (2 for 6 characters, 3 for 9). "" when none
// is, or when two candidates tie.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'NAME'?)" for closest_name's answer, or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace vktune
