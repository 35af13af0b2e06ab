// cublas<S|D>dot targets. A dot product evaluates one probe, so a batch of probes becomes one
// upload of all their vectors, one cublas<S|D>dot per probe writing to device memory (pointer mode
// device: the calls queue up without a synchronisation each) and one download of the results.
#include <algorithm>
#include <sstream>

#include "storage.hpp"
#include "targets.hpp"
#include "value_checks.hpp"

namespace fprev::cublas::detail {
namespace {

// Vectors start at multiples of 256 bytes, as fresh cudaMalloc memory does, so every probe sees
// the alignment an application's vectors would have (a kernel may choose by alignment).
constexpr std::size_t kAlignmentBytes = 256;
// Host and device staging for one batch of probes, both operands together.
constexpr std::size_t kStagingBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxProbesPerCall = 256;

template <class T>
class DotTarget final : public Target {
 public:
  DotTarget(const TargetSetup& setup, Codec<T> codec) : setup_(setup), codec_(codec) {
    n_ = setup.config.leaves();
    const std::size_t per_alignment = kAlignmentBytes / sizeof(T);
    stride_ = (n_ + per_alignment - 1) / per_alignment * per_alignment;
    const std::size_t per_probe = 2 * stride_ * sizeof(T);
    batch_ = std::clamp<std::size_t>(kStagingBytes / per_probe, 1, kMaxProbesPerCall);
    info_.n = n_;
    info_.traits = setup.traits;
    info_.max_batch = batch_;
    info_.alignment = AlignmentSupport::not_applicable;  // cudaMalloc places the device buffers

    check(cudaSetDevice(setup.device.ordinal), "cudaSetDevice");
    stream_ = make_stream();
    d_x_ = DeviceMemory(batch_ * stride_ * sizeof(T));
    d_y_ = DeviceMemory(batch_ * stride_ * sizeof(T));
    d_result_ = DeviceMemory(batch_ * sizeof(T));
    h_x_ = PinnedMemory(d_x_.bytes());
    h_y_ = PinnedMemory(d_y_.bytes());
    h_result_ = PinnedMemory(d_result_.bytes());
    handle_ = std::make_unique<ConfiguredHandle>(setup.settings, stream_.get(),
                                                 CUBLAS_POINTER_MODE_DEVICE);
    std::ostringstream os;
    os << "cuBLAS " << setup.config.describe() << " on " << setup.device.name << " (sm"
       << setup.device.cc_major << setup.device.cc_minor << "), math mode "
       << to_string(setup.settings.math_mode) << ", pointer mode device";
    info_.description = os.str();
  }

  ~DotTarget() override { (void)cudaSetDevice(setup_.device.ordinal); }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    const std::size_t probes = batch.probes.size();
    check_batch_size(probes, outputs.size(), batch_);
    if (probes == 0) return;
    const Format input = setup_.traits.input;
    check_probe_values(*batch.values, input, input, false, setup_.config.output);
    T* x = h_x_.as<T>();
    T* y = h_y_.as<T>();
    for (std::size_t p = 0; p < probes; ++p)
      write_probe_row<T>(batch, p, n_, x + p * stride_, y + p * stride_, codec_.encode);
    run(probes, outputs);
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    check_batch_size(batch.rows, outputs.size(), batch_);
    check_value_batch(batch, n_);
    const Format input = setup_.traits.input;
    T* x = h_x_.as<T>();
    T* y = h_y_.as<T>();
    for (std::size_t r = 0; r < batch.rows; ++r) {
      for (std::size_t k = 0; k < n_; ++k) {
        const SummandValue v = batch.leaf(r, n_, k);
        require_representable(v.a, input, "input a =");
        require_representable(v.b, input, "input b =");
        x[r * stride_ + k] = codec_.encode(v.a);
        y[r * stride_ + k] = codec_.encode(v.b);
      }
    }
    if (batch.rows > 0) run(batch.rows, outputs);
  }

 private:
  void run(std::size_t count, std::span<double> outputs) {
    check(cudaSetDevice(setup_.device.ordinal), "cudaSetDevice");
    cudaStream_t stream = stream_.get();
    const std::size_t bytes = count * stride_ * sizeof(T);
    check(cudaMemcpyAsync(d_x_.get(), h_x_.get(), bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
    check(cudaMemcpyAsync(d_y_.get(), h_y_.get(), bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
    const int n = static_cast<int>(n_);
    for (std::size_t p = 0; p < count; ++p) {
      const T* dx = d_x_.as<T>() + p * stride_;
      const T* dy = d_y_.as<T>() + p * stride_;
      T* result = d_result_.as<T>() + p;
      if constexpr (std::is_same_v<T, double>) {
        check(cublasDdot(handle_->get(), n, dx, 1, dy, 1, result), "cublasDdot");
      } else {
        check(cublasSdot(handle_->get(), n, dx, 1, dy, 1, result), "cublasSdot");
      }
    }
    check(cudaMemcpyAsync(h_result_.get(), d_result_.get(), count * sizeof(T),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const T* results = h_result_.as<T>();
    for (std::size_t p = 0; p < count; ++p) outputs[p] = codec_.decode(results[p]);
  }

  TargetSetup setup_;
  Codec<T> codec_;
  std::size_t n_ = 0, stride_ = 0, batch_ = 1;
  TargetInfo info_;
  Stream stream_;
  DeviceMemory d_x_, d_y_, d_result_;
  PinnedMemory h_x_, h_y_, h_result_;
  std::unique_ptr<ConfiguredHandle> handle_;
};

}  // namespace

std::unique_ptr<Target> make_dot_target(const TargetSetup& setup) {
  if (setup.config.dtype == Format::float64)
    return std::make_unique<DotTarget<double>>(setup, double_codec());
  return std::make_unique<DotTarget<float>>(setup, float_codec());
}

std::unique_ptr<Target> make_target(const TargetSetup& setup) {
  if (setup.config.op == Op::dot) return make_dot_target(setup);
  return make_matrix_target(setup);
}

}  // namespace fprev::cublas::detail
