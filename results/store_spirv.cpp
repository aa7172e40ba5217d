// The store's SPIR-V rows and its warnings: every read checks the words
// against their content hash, and content-addressed rows never change.
#include <algorithm>
#include <iostream>

#include "common/error.hpp"
#include "results/spirv_bytes.hpp"
#include "results/store.hpp"

namespace vktune::results {

void Store::warn_once(const std::string& topic, const std::string& line) const {
  if (!warned_.insert(topic).second) return;
  if (warn_) {
    warn_(line);
  } else {
    std::cerr << "vktune: warning: " << line << "\n";
  }
}

std::optional<std::vector<std::uint32_t>> Store::verified_spirv(const std::string& key, const std::vector<std::byte>& bytes,
                                                                const std::string& content_hash) const {
  auto words = spirv_from_bytes(bytes);
  if (words && !words->empty() && spirv_content_hash(*words) == content_hash) return words;
  warn_once("spirv " + key, "results database '" + path().string() + "': the stored SPIR-V '" + key +
                                "' does not match its content hash (a damaged row); it counts as not stored");
  return std::nullopt;
}

std::optional<std::vector<std::uint32_t>> Store::get_spirv(const std::string& hash) const {
  auto query = statement("SELECT words, content_hash FROM spirv WHERE hash = ?1");
  query->bind_all(hash);
  if (!query->step()) return std::nullopt;
  return verified_spirv(hash, query->column_blob(0), query->column_text(1));
}

void Store::put_spirv(const std::string& hash, std::span<const std::uint32_t> words) {
  if (words.empty()) {
    throw Error(ErrorKind::database, "results database '" + path().string() + "': empty SPIR-V for '" + hash + "'");
  }
  const auto content = spirv_content_hash(words);
  if (hash == content) {
    // Content-addressed: what the key names is fixed. A good row stays as it
    // is; one that holds other words that nonetheless verify is a collision
    // someone made (the hash is not cryptographic), and is refused.
    auto query = statement("SELECT words, content_hash FROM spirv WHERE hash = ?1");
    query->bind_all(hash);
    if (query->step()) {
      const auto bytes = query->column_blob(0);
      const auto stored = spirv_from_bytes(bytes);
      if (stored && query->column_text(1) == content && spirv_content_hash(*stored) == content) {
        if (std::equal(stored->begin(), stored->end(), words.begin(), words.end())) return;
        throw Error(ErrorKind::database, "results database '" + path().string() + "': SPIR-V '" + hash +
                                             "' is stored with other words of the same hash (a collision); the "
                                             "stored words are kept and these refused");
      }
    }
  }
  // A cache row takes the latest compile; a damaged content-addressed row is
  // repaired by words that hash to its key.
  auto insert = statement(
      "INSERT INTO spirv (hash, words, content_hash) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (hash) DO UPDATE SET words = excluded.words, content_hash = excluded.content_hash");
  insert->bind(1, hash).bind_blob(2, spirv_to_bytes(words)).bind(3, content).run();
}

}  // namespace vktune::results
