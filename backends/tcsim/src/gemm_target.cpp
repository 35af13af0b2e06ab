// The simulated GEMM as an fprev::Target: one probe per row of A, B shared by all rows.
#include <cmath>
#include <cstring>
#include <sstream>

#include "fprev/backends/tcsim.hpp"
#include "fprev/mask_scheme.hpp"
#include "fprev/probe_inputs.hpp"

namespace fprev::tcsim {
namespace {

std::string allowed_inputs(const ArchModel& model) {
  std::string out;
  for (Format f : model.inputs) out += (out.empty() ? "" : ", ") + std::string(to_string(f));
  if (model.float64_fma) out += ", float64";
  return out;
}

bool same_bits(double x, double y) {
  return std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y));
}

std::string describe(const GemmTargetSpec& s) {
  std::ostringstream os;
  os << "tcsim " << s.model.name << " gemm " << to_string(s.input) << " -> "
     << to_string(s.output) << ", m=" << s.m << " n=" << s.n << " k=" << s.k
     << (s.beta ? " +C" : "") << " (k_tile " << s.config.k_tile << ", split_k "
     << s.config.split_k << " " << to_string(s.config.reduction) << ", residue "
     << to_string(s.config.residue) << ", C " << to_string(s.config.c_placement) << ")";
  return os.str();
}

// Probes go one per row of A with B shared by all rows (SummandKind::product_shared_rhs: all the
// dynamic range in A, one constant b) when the input format has the range for that; otherwise
// (fp8, or very long sums) each probe gets its own row of A *and* column of B and is read from the
// diagonal of D (SummandKind::product: the mask splits over both factors, Xie et al., USENIX ATC 2025 Sec. 8.1).
class GemmTarget final : public Target {
 public:
  explicit GemmTarget(const GemmTargetSpec& spec)
      : spec_(spec),
        kernel_(spec.model, spec.input, spec.output, spec.k, spec.config),
        leaves_(spec.k + (spec.beta ? 1 : 0)),
        rows_(spec.m * leaves_),
        b_(leaves_),
        b_other_(leaves_),
        b_matrix_(spec.k * spec.n) {
    info_.description = describe(spec);
    info_.n = leaves_;
    NumericTraits& t = info_.traits;
    t.input = spec.input;
    t.accumulator = kernel_.accumulator();
    t.output = spec.output;
    t.summand = SummandKind::product_shared_rhs;
    t.max_fused_width = kernel_.fma_chain() ? 2 : static_cast<std::size_t>(spec.model.fused_width());
    t.fused_extra_bits = kernel_.fma_chain() ? 0 : spec.model.extra_bits;
    // The engine's fused-node simulation rounds the normalised sum to nearest; the hardware (and
    // this model) truncates it, so random-input simulation of fused trees does not apply.
    t.simulate_fused = false;
    if (largest_maskable_n(t) < leaves_) {
      t.summand = SummandKind::product;
      diagonal_ = true;
      columns_.resize(spec.n * leaves_);
    }
    info_.max_batch = diagonal_ ? std::min(spec.m, spec.n) : spec.m;
    info_.alignment = AlignmentSupport::not_applicable;  // a model: no addresses in it
  }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    const std::size_t count = batch.probes.size();
    if (count != outputs.size() || count > info_.max_batch)
      throw TargetError("tcsim: a probe batch needs one output per probe and at most " +
                        std::to_string(info_.max_batch) + " probes");
    const ProbeValues& v = *batch.values;
    for (const SummandValue& s : {v.unit, v.plus, v.minus, v.zero()}) check_probe_value(s);
    if (diagonal_) {
      // Probe p: row p of A, column p of B, read at D[p][p].
      for (std::size_t p = 0; p < count; ++p) {
        double* column = &columns_[p * leaves_];
        write_probe_row<double>(batch, p, leaves_, &rows_[p * leaves_], column);
        for (std::size_t i = 0; i < spec_.k; ++i) b_matrix_[i * spec_.n + p] = column[i];
      }
      shared_b_filled_ = false;
      compute(count, outputs, true);
      return;
    }
    for (std::size_t p = 0; p < count; ++p) {
      std::vector<double>& b = p == 0 ? b_ : b_other_;
      write_probe_row<double>(batch, p, leaves_, &rows_[p * leaves_], b.data());
      if (p > 0 && b_other_ != b_)
        throw TargetError("tcsim: the probes of one batch ask for different B columns; B is shared "
                          "by every row of a GEMM (SummandKind::product_shared_rhs)");
    }
    fill_shared_b();
    compute(count, outputs, false);
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    if (batch.rows != outputs.size() || batch.rows > info_.max_batch ||
        batch.a.size() != batch.rows * leaves_ || batch.b.size() != leaves_) {
      throw TargetError("tcsim: a value batch needs rows <= max_batch, rows x n left factors and n "
                        "shared right factors");
    }
    for (std::size_t r = 0; r < batch.rows; ++r)
      for (std::size_t k = 0; k < leaves_; ++k) check_summand(batch.leaf(r, leaves_, k), k);
    std::copy(batch.a.begin(), batch.a.end(), rows_.begin());
    std::copy(batch.b.begin(), batch.b.end(), b_.begin());
    fill_shared_b();
    compute(batch.rows, outputs, false);
  }

 private:
  // Every value the engine hands over is exact in the input format (C: in the accumulator format);
  // anything else is an engine bug that must not be rounded away silently.
  void check_summand(const SummandValue& s, std::size_t leaf) const {
    if (leaf < spec_.k) {
      if (!is_representable(s.a, spec_.input) || !is_representable(s.b, spec_.input))
        throw TargetError(bad_value("a factor", s, to_string(spec_.input)));
      return;
    }
    const double c = s.a * s.b;
    if (std::fma(s.a, s.b, -c) != 0.0 || !is_representable(c, kernel_.accumulator()))
      throw TargetError(bad_value("C", s, to_string(kernel_.accumulator())));
  }
  // A probe value may sit at any leaf, C's included.
  void check_probe_value(const SummandValue& s) const {
    check_summand(s, 0);
    if (spec_.beta) check_summand(s, spec_.k);
  }
  static std::string bad_value(const char* what, const SummandValue& s, std::string_view format) {
    std::ostringstream os;
    os.precision(17);
    os << "tcsim: " << what << " of the summand " << s.a << " * " << s.b
       << " is not exactly representable in " << format;
    return os.str();
  }

  // B (k x n) with every column equal to b_; rewritten only when b_ changed (probe batches keep
  // the same b from call to call).
  void fill_shared_b() {
    const std::size_t n = spec_.n, k = spec_.k;
    bool same = shared_b_filled_;
    for (std::size_t i = 0; i < k && same; ++i) same = same_bits(b_matrix_[i * n], b_[i]);
    if (same) return;
    for (std::size_t i = 0; i < k; ++i) std::fill_n(&b_matrix_[i * n], n, b_[i]);
    shared_b_filled_ = true;
  }

  // Row r of D: column r on the diagonal, else column 0. With a shared B every column of D must be
  // the same: the first row of each call is also computed in the last column and compared (once
  // per call, so the check does not double the cost of a reveal).
  void compute(std::size_t rows, std::span<double> outputs, bool diagonal) {
    const std::size_t n = spec_.n, k = spec_.k;
    for (std::size_t r = 0; r < rows; ++r) {
      const double* a = &rows_[r * leaves_];
      const std::size_t column = diagonal ? r : 0;
      double c = 0.0;
      if (spec_.beta) c = a[k] * (diagonal ? columns_[r * leaves_ + k] : b_[k]);
      const double* c_ptr = spec_.beta ? &c : nullptr;
      const double result = kernel_.element(a, &b_matrix_[column], n, c_ptr);
      if (!diagonal && n > 1 && r == 0) {
        const double last = kernel_.element(a, &b_matrix_[n - 1], n, c_ptr);
        if (!same_bits(result, last)) {
          std::ostringstream os;
          os.precision(17);
          os << "tcsim: row " << r << " gives " << result << " in column 0 but " << last
             << " in column " << n - 1 << " although every column of B is the same";
          throw TargetError(os.str());
        }
      }
      outputs[r] = result;
    }
  }

  GemmTargetSpec spec_;
  GemmKernel kernel_;
  std::size_t leaves_;
  TargetInfo info_;
  bool diagonal_ = false;
  bool shared_b_filled_ = false;  // b_matrix_ holds b_ in every column
  std::vector<double> rows_;      // row p of A (and C's factor at leaf k), one per probe
  std::vector<double> b_;         // the shared right factors, one per leaf
  std::vector<double> b_other_;   // the right factors another probe of the batch asked for
  std::vector<double> columns_;   // diagonal mode: column p of B (and C's factor), one per probe
  std::vector<double> b_matrix_;  // B (k x n), row-major
};

}  // namespace

std::size_t default_k_tile(Arch arch) {
  switch (arch) {
    case Arch::volta:
    case Arch::turing:
    case Arch::ampere:
      return 32;
    case Arch::hopper:
      return 64;
  }
  return 32;
}

void validate(const GemmTargetSpec& s) {
  const std::string who = "tcsim " + s.model.name;
  if (s.m == 0) throw ConfigError("m", who + ": 'm' must be at least 1");
  if (s.n == 0) throw ConfigError("n", who + ": 'n' must be at least 1");
  if (s.k == 0) throw ConfigError("k", who + ": 'k' must be at least 1");
  if (s.model.products_per_step < 1 || s.model.products_per_step > 64)
    throw ConfigError("arch", who + ": products_per_step must be in 1..64");
  if (!s.model.supports(s.input)) {
    throw ConfigError("dtype", who + ": dtype '" + std::string(to_string(s.input)) +
                                   "' is not available on this architecture; allowed values: " +
                                   allowed_inputs(s.model));
  }
  if (s.input == Format::float64) {
    if (s.output != Format::float64)
      throw ConfigError("output", who + ": dtype float64 gives output float64; allowed values: float64");
  } else if (s.output != Format::float32 && s.output != Format::float16 &&
             s.output != Format::bfloat16) {
    throw ConfigError("output", who + ": output '" + std::string(to_string(s.output)) +
                                    "' is not available; allowed values: float32, float16, bfloat16");
  }
  const Format accumulator = s.input == Format::float64 ? Format::float64 : Format::float32;
  if (s.beta && s.output != accumulator) {
    throw ConfigError("beta", who + ": beta = 1 needs output " + std::string(to_string(accumulator)) +
                                  ": C has the output's format, and the probe masks of product "
                                  "summands do not fit a narrower one");
  }
  if (s.config.split_k == 0) throw ConfigError("split_k", who + ": 'split_k' must be at least 1");
  const auto step = static_cast<std::size_t>(s.model.products_per_step);
  if (s.config.k_tile == 0 || s.config.k_tile % step != 0) {
    throw ConfigError("k_tile", who + ": 'k_tile' " + std::to_string(s.config.k_tile) +
                                    " is not a multiple of the step of " + std::to_string(step) +
                                    " products; allowed values: multiples of " +
                                    std::to_string(step));
  }
}

std::unique_ptr<Target> make_tcsim_target(const GemmTargetSpec& spec) {
  GemmTargetSpec for_input = spec;
  for_input.model = spec.model.for_input(spec.input);
  validate(for_input);
  return std::make_unique<GemmTarget>(for_input);
}

}  // namespace fprev::tcsim
