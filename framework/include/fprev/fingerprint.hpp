// The arithmetic fingerprint: what the order alone does not tell about a target's bits.
//
// Two targets with the same summation tree can still return different bits: partial sums kept in
// wider registers (OpenBLAS's sdot keeps its n mod 32 tail in double), products contracted into the
// accumulator (FMA), another rounding of additions, flushed subnormals, a matrix unit keeping other
// extra alignment bits. A fingerprint holds
//   * the outputs, bit for bit, on fixed input sets from our own portable generator (SplitMix64 and
//     exact integer-to-float constructions: the same bytes with every compiler and standard library),
//     with a digest of them; and
//   * arithmetic facts, each measured with inputs built to expose it and placed with the revealed
//     tree (which leaves meet at which addition), in the manner of Valpey et al., "An SMT Formalization
//     of Mixed-Precision Matrix Multiplication", NFM 2025 (Sec. 4-6), and Xie et al., "Revealing
//     Floating-Point Accumulation Orders in Software/Hardware Implementations", USENIX ATC 2025
//     (Sec. 5.2 and 8). A fact that cannot be determined with the target's formats says so.
// The gate compares both with the golden's; docs/fingerprint.md lists the facts and their values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// SplitMix64 (Steele, Lea, Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014;
// Vigna's reference splitmix64.c): 64-bit state, one multiply-xorshift output per step.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [0, bound) for bound >= 1 (rejection sampling: no modulo bias).
  std::uint64_t below(std::uint64_t bound);

 private:
  std::uint64_t state_;
};

// One fixed input set: `rows` inputs of n summands. For product summands, `b` holds the right
// factors shared by the set's rows (as a GEMM's B is shared by its rows); empty for plain sums.
struct FingerprintInputSet {
  std::string name;  // "cancel", "normal", "overflow", "subnormal", "wide"
  std::size_t rows = 0;
  std::vector<double> a;  // rows x n, row-major; every value exact in the input format
  std::vector<double> b;
};

// The input sets for a target's formats and n, in alphabetical order of their names. Deterministic:
// the same TargetInfo formats and n give the same values in every build.
std::vector<FingerprintInputSet> fingerprint_inputs(const TargetInfo& info);

struct Fingerprint {
  // Outputs per input set (alphabetical by set name), in row order.
  std::map<std::string, std::vector<double>> outputs;
  // Measured facts by name (see docs/fingerprint.md): "partial-sums", "rounding", "products",
  // "subnormal-inputs", "subnormal-results", "fused-extra-bits", "fused-alignment".
  std::map<std::string, std::string> facts;
  // Whether the tree plus the facts reproduce the outputs bitwise (a simulation that adds in the
  // tree's order with the measured precision, rounding, products and fused-node alignment):
  // "reproduced", "not reproduced: ..." or "not modelled: ...".
  std::string model;

  std::size_t input_count() const;
  // FNV-1a (64 bits) over the outputs' float64 bit patterns, in set and row order: 16 hex digits.
  std::string digest() const;
  // Outputs compare as the digest reads them: bit for bit, every NaN equal to every NaN (payloads
  // and signs of NaN vary by CPU, and the text form writes one "nan").
  friend bool operator==(const Fingerprint& a, const Fingerprint& b);
};

struct FingerprintStats {
  std::size_t target_calls = 0;
  std::size_t inputs = 0;   // rows evaluated (fixed sets and fact experiments)
  // Packed calls (docs/fingerprint.md): inputs read with their factors turned around (left factors
  // in a column), and of them those read again the usual way because a twin's bits differed.
  std::size_t turned_inputs = 0;
  std::size_t read_again = 0;
  double seconds = 0.0;
};

// Evaluates the fixed input sets and measures the facts on `target`, whose revealed tree is `tree`.
// Throws TargetError when the target fails.
Fingerprint measure_fingerprint(Target& target, const Tree& tree, FingerprintStats* stats = nullptr);

// One fingerprint per class of `map` (in class order), each measured on the class's elements (a
// grid target is read through a ClassView, fprev/class_view.hpp); a single-output target has one
// class. Throws TargetError when the target fails.
//
// `evidence`: the stats of the reveal or confirmation of `map` on this same target
// (RevealStats::row_signatures and column_signatures). With them, a grid target with
// TargetInfo::column_right_factors has each class read in the rows and columns that computed like
// its view's at every element, and the inputs with different right factors share calls
// (docs/fingerprint.md). Without them, or without that capability, every input is read where the
// class's view reads it, one call per set of right factors. The outputs are the same either way
// where elements compute alike.
std::vector<Fingerprint> measure_map_fingerprints(Target& target, const OrderMap& map,
                                                  FingerprintStats* stats = nullptr,
                                                  const RevealStats* evidence = nullptr);

// What check reports when a fingerprint changed.
struct FingerprintComparison {
  std::size_t inputs = 0;             // inputs compared
  std::size_t differing_outputs = 0;  // inputs whose outputs differ bitwise
  std::string first_set;              // the first differing input: set and row
  std::size_t first_row = 0;
  double golden_output = 0.0;
  double new_output = 0.0;
  std::optional<double> ulps;  // distance in units in the last place of the output format
  std::vector<std::string> changed_facts;  // "partial-sums: float32 -> float64"
  bool inputs_comparable = true;           // same sets and sizes (else the generator changed)

  bool same() const { return differing_outputs == 0 && changed_facts.empty() && inputs_comparable; }
  // "outputs differ bitwise on 5 of 32 inputs (first: normal[3] 0x1.8p+3 -> 0x1.80002p+3, 1 ulp);
  //  partial-sums: float32 -> float64" or "... facts unchanged: unexplained".
  std::string summary() const;
};

FingerprintComparison compare_fingerprints(const Fingerprint& golden, const Fingerprint& now,
                                           Format output);

// Units in the last place of `format` between two of its values: how many steps through the
// format's values lead from one to the other (nullopt when one is not finite).
std::optional<double> ulp_distance(double a, double b, Format format);

// Canonical hexadecimal text of a double ("0x1.8p+3", "-0x0p+0", "inf", "nan"): the same bytes
// with every C library, parsed back exactly by parse_hex_double.
std::string hex_double(double value);
std::optional<double> parse_hex_double(std::string_view text);

}  // namespace fprev
