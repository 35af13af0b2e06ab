// The fingerprint lines of a golden: written canonically, read back exactly, and checked when read
// (a digest that does not match its outputs, a non-canonical number, an unknown key fail with the
// line). Goldens without a fingerprint keep reading.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

Golden sample() {
  Golden golden;
  golden.meta.suite = "s";
  golden.meta.case_id = "dot-n4";
  golden.meta.backend = "b";
  golden.meta.platform_key = "any";
  golden.meta.library = "lib";
  golden.meta.tool_version = "0.1.0";
  golden.meta.created = "2024-05-01";
  golden.map = OrderMap::uniform({}, parse_sexpr("((0 1) (2 3))"));
  Fingerprint f;
  f.outputs["normal"] = {1.5, -0.0, 0x1p-149};
  f.outputs["overflow"] = {INFINITY, -0x1.fffffep+127};
  f.facts["partial-sums"] = "float32; float64 at leaves 2";
  f.facts["rounding"] = "nearest-even";
  f.model = "reproduced";
  golden.fingerprints = {f};
  return golden;
}

// Written out by hand from the format in golden.hpp; the digest is FNV-1a over the five outputs'
// float64 bit patterns, little-endian bytes, in set and row order.
std::string expected_lines(const std::string& digest) {
  return "fingerprint.digest: " + digest + "\n"
         "fingerprint.fact.partial-sums: float32; float64 at leaves 2\n"
         "fingerprint.fact.rounding: nearest-even\n"
         "fingerprint.model: reproduced\n"
         "fingerprint.outputs.normal: 0x1.8p+0 -0x0p+0 0x1p-149\n"
         "fingerprint.outputs.overflow: inf -0x1.fffffep+127\n";
}

// FNV-1a written out independently of Fingerprint::digest.
std::string fnv1a(const std::vector<double>& values) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    for (int i = 0; i < 8; ++i) {
      hash ^= static_cast<unsigned char>(bits >> (8 * i));
      hash *= 0x100000001b3ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

TEST(GoldenFingerprint, WritesTheDocumentedLines) {
  const std::string text = write_golden_text(sample());
  const std::string digest = fnv1a({1.5, -0.0, 0x1p-149, INFINITY, -0x1.fffffep+127});
  EXPECT_NE(text.find(expected_lines(digest)), std::string::npos) << text;
  EXPECT_LT(text.find("fingerprint.digest"), text.find("leaves: 4"));
}

TEST(GoldenFingerprint, RoundTripsExactly) {
  const Golden golden = sample();
  const Golden back = parse_golden_text(write_golden_text(golden));
  ASSERT_TRUE(back.fingerprint());
  EXPECT_EQ(*back.fingerprint(), *golden.fingerprint());
  EXPECT_TRUE(std::signbit(back.fingerprint()->outputs.at("normal")[1]));
  EXPECT_EQ(write_golden_text(back), write_golden_text(golden));
}

TEST(GoldenFingerprint, OlderGoldensWithoutOneStillRead) {
  Golden golden = sample();
  golden.fingerprints.clear();
  const std::string text = write_golden_text(golden);
  EXPECT_EQ(text.find("fingerprint."), std::string::npos);
  EXPECT_FALSE(parse_golden_text(text).fingerprint());
}

std::string parse_error(const std::string& text) {
  try {
    parse_golden_text(text, "g.golden");
  } catch (const GoldenParseError& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(GoldenFingerprint, AnEditedOutputFailsTheDigestCheck) {
  const std::string text = replaced(write_golden_text(sample()), "0x1.8p+0 ", "0x1.cp+0 ");
  const std::string error = parse_error(text);
  EXPECT_NE(error.find("g.golden:13: fingerprint.digest is '"), std::string::npos) << error;
  EXPECT_NE(error.find("but the outputs give"), std::string::npos) << error;
}

TEST(GoldenFingerprint, MalformedLinesNameTheLine) {
  const std::string text = write_golden_text(sample());
  EXPECT_NE(parse_error(replaced(text, "0x1.8p+0 ", "1.5 ")).find("g.golden:17: fingerprint output '1.5'"),
            std::string::npos);
  EXPECT_NE(parse_error(replaced(text, "0x1.8p+0 ", "0x1.80p+0 ")).find("not a canonical"), std::string::npos);
  EXPECT_NE(parse_error(replaced(text, "fingerprint.model", "fingerprint.modle")).find("unknown key 'fingerprint.modle'"),
            std::string::npos);
  const std::string no_digest = replaced(text, text.substr(text.find("fingerprint.digest"), 37), "");
  EXPECT_NE(parse_error(no_digest).find("missing key 'fingerprint.digest'"), std::string::npos) << parse_error(no_digest);
}

TEST(GoldenFingerprint, StoreRewritesWhenOnlyTheFingerprintChanged) {
  const auto dir = std::filesystem::temp_directory_path() / "fprev-golden-fingerprint-store";
  std::filesystem::remove_all(dir);
  const auto path = dir / "g.golden";
  Golden golden = sample();
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::created);
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::unchanged);
  golden.fingerprints[0].facts["rounding"] = "toward-zero";
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::changed);
  EXPECT_EQ(read_golden(path).fingerprint()->facts.at("rounding"), "toward-zero");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fprev
