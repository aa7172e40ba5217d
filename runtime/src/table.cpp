#include <fstream>
#include <iterator>
#include <sstream>

#include "table_data.hpp"

namespace vktune::runtime {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(Error::Kind::io, "vktune table '" + path.string() + "' does not exist or is not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Error::Kind::io, "vktune table '" + path.string() + "' cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(Error::Kind::io, "vktune table '" + path.string() + "' cannot be read");
  return std::move(text).str();
}

bool starts_like_sqlite(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[16] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == 16 && std::string_view(magic, 16) == std::string_view("SQLite format 3\0", 16);
}

}  // namespace

Table::Table(std::unique_ptr<detail::TableData> data) : data_(std::move(data)) {}
Table::Table(Table&&) noexcept = default;
Table& Table::operator=(Table&&) noexcept = default;
Table::~Table() = default;

Table Table::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(Error::Kind::io, "vktune table '" + path.string() + "' does not exist or is not a file");
  }
  return starts_like_sqlite(path) ? open_sqlite(path) : open_json(path);
}

Table Table::open_json(const std::filesystem::path& path) {
  const auto text = read_file(path);
  return Table(std::make_unique<detail::TableData>(detail::load_json_text(text, path.string())));
}

Table Table::open_sqlite(const std::filesystem::path& path) {
  return Table(std::make_unique<detail::TableData>(detail::load_sqlite(path.string())));
}

Table Table::from_json_text(std::string_view text, const std::string& source) {
  return Table(std::make_unique<detail::TableData>(detail::load_json_text(text, source)));
}

const std::vector<TableDevice>& Table::devices() const { return data_->devices; }
const std::vector<Entry>& Table::entries() const { return data_->entries; }
const std::string& Table::source() const { return data_->source; }

}  // namespace vktune::runtime
