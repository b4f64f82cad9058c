// test_wrapper.cpp - CTest test of bindings/cpp/tenon.hpp: ownership moves, error results.
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "tenon.hpp"

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

int main() {
  tenon_world_id raw{};
  {
    auto created = tenon::World::create();
    EXPECT(created.ok());
    tenon::World a = std::move(created).value();
    raw = a.id();
    tenon::World b = std::move(a);  // ownership moves; `a` is empty
    EXPECT(!a && b && b.id().index1 == raw.index1);
    auto body = b.create_body(tenon_body_def_default());
    EXPECT(body.ok());
    // errors come back as values, with the C code and message
    tenon_body_def bad = tenon_body_def_default();
    bad.mass_properties.mass = -1.0;
    auto r = b.create_body(bad);
    EXPECT(!r && r.code() == TENON_RESULT_INVALID_MASS);
    EXPECT(!tenon::last_error_message().empty());
    auto s = b.set_pose(body.value(), {std::nan(""), 0, 0}, {0, 0, 0, 1});
    EXPECT(!s && s.code() == TENON_RESULT_NON_FINITE);
    EXPECT(b.step(1.0 / 60.0).ok());
    EXPECT(b.destroy_body(body.value()).ok());
    auto stale = b.position(body.value());
    EXPECT(!stale && stale.code() == TENON_RESULT_INVALID_HANDLE);
  }
  // the destructor destroyed the world
  EXPECT(tenon_world_destroy(raw) == TENON_RESULT_WORLD_DESTROYED);
  tenon::BodyId null_id;
  EXPECT(null_id.is_null() && null_id == tenon::BodyId{});
  if (failures) return 1;
  std::printf("OK: wrapper checks passed\n");
  return 0;
}
