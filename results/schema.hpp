#pragma once
// The store's schema: its version lives in SQLite's PRAGMA user_version, and
// ordered migrations bring a database from any older version to the current
// one (version 0 is an empty file).
//
// Version history
//   v1  devices, kernels, variants, spirv, measurements (no mad_ns), winners
//   v2  measurements.mad_ns; ceilings table
//   v3  measurements.phase ('search' | 'confirm') joins the primary key;
//       measurements.{compile,pipeline,validation,warmup,timing}_ms
//   v4  winners.contract_json
//   v5  spirv.content_hash (the words' content hash, checked on every read)
#include "results/sqlite.hpp"

namespace vktune::results::schema {

inline constexpr int current_version = 6;

// The database's schema version (PRAGMA user_version).
int read_version(const sqlite::Connection& connection);

// Throws an Error naming the file and both versions when the database was
// written by a newer vktune; when it has tables but no version, it is some
// other program's database and that is an error too.
void check_known(const sqlite::Connection& connection, int version);

// Brings the database to current_version in one IMMEDIATE transaction (either
// every step applies or none). Safe against another process migrating at the
// same time: the version is read again once the write lock is held.
void migrate(const sqlite::Connection& connection);

}  // namespace vktune::results::schema
