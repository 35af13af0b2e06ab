#include "worker/protocol.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "fprev/backend_module.hpp"

namespace fprev::worker {
namespace {

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw ProtocolError(std::string("cannot write to the worker socket: ") + std::strerror(errno));
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

// false at end of stream before the first byte; throws on a stream cut inside.
bool read_all(int fd, char* data, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, data + got, size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ProtocolError(std::string("cannot read the worker socket: ") + std::strerror(errno));
    }
    if (n == 0) {
      if (got == 0) return false;
      throw ProtocolError("the message stream ended inside a frame");
    }
    got += static_cast<std::size_t>(n);
  }
  return true;
}

std::string_view type_name(ParamType type) {
  switch (type) {
    case ParamType::integer: return "integer";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
    case ParamType::boolean: return "boolean";
    case ParamType::path: return "path";
  }
  return "string";
}

ParamType parse_type(const std::string& name) {
  if (name == "integer") return ParamType::integer;
  if (name == "choice") return ParamType::choice;
  if (name == "boolean") return ParamType::boolean;
  if (name == "string") return ParamType::string;
  if (name == "path") return ParamType::path;
  throw ProtocolError("unknown parameter type '" + name + "'");
}

Format format_named(const Json& json) {
  const auto format = parse_format(json.get<std::string>());
  if (!format) throw ProtocolError("unknown format " + json.dump());
  return *format;
}

std::string_view summand_name(SummandKind kind) {
  switch (kind) {
    case SummandKind::plain: return "plain";
    case SummandKind::product: return "product";
    case SummandKind::product_shared_rhs: return "product_shared_rhs";
  }
  return "plain";
}

SummandKind parse_summand(const std::string& name) {
  if (name == "plain") return SummandKind::plain;
  if (name == "product") return SummandKind::product;
  if (name == "product_shared_rhs") return SummandKind::product_shared_rhs;
  throw ProtocolError("unknown summand kind '" + name + "'");
}

std::optional<Unavailability> parse_unavailability(const std::string& name) {
  for (Unavailability reason : {Unavailability::not_installed, Unavailability::host_cannot_run,
                                Unavailability::unsupported_setting, Unavailability::unusable})
    if (to_string(reason) == name) return reason;
  return std::nullopt;
}

}  // namespace

int high_fd(int fd) {
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  const int error = errno;
  ::close(fd);
  if (moved < 0) throw std::system_error(error, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return moved;
}

std::string encode_frame(const Json& message) {
  const std::string text = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxFrameBytes) throw ProtocolError("a message of " + std::to_string(text.size()) + " bytes");
  const auto size = static_cast<std::uint32_t>(text.size());
  std::string frame(4, '\0');
  for (int k = 0; k < 4; ++k) frame[k] = static_cast<char>((size >> (8 * k)) & 0xff);
  frame += text;
  return frame;
}

void write_frame(int fd, const Json& message) {
  const std::string frame = encode_frame(message);
  write_all(fd, frame.data(), frame.size());
}

std::optional<Json> read_frame(int fd) {
  unsigned char prefix[4];
  if (!read_all(fd, reinterpret_cast<char*>(prefix), 4)) return std::nullopt;
  const std::uint32_t size = prefix[0] | (prefix[1] << 8) | (prefix[2] << 16) |
                             (static_cast<std::uint32_t>(prefix[3]) << 24);
  if (size > kMaxFrameBytes) throw ProtocolError("a frame of " + std::to_string(size) + " bytes");
  std::string text(size, '\0');
  if (size > 0 && !read_all(fd, text.data(), size)) throw ProtocolError("the message stream ended inside a frame");
  Json message = Json::parse(text, nullptr, false);
  if (message.is_discarded() || !message.is_object()) throw ProtocolError("a frame that is not a JSON object");
  return message;
}

// ---- shared memory ------------------------------------------------------------------------------

SharedMemory::~SharedMemory() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

void SharedMemory::unmap() {
  if (data_ != nullptr) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

void SharedMemory::create(std::size_t bytes) {
  const int fd = ::memfd_create("fprev-worker-arrays", MFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "memfd_create");
  fd_ = high_fd(fd);
  reserve(bytes);
}

void SharedMemory::reserve(std::size_t bytes) {
  in_use_ = bytes;
  if (bytes <= size_ && data_ != nullptr) return;
  std::size_t size = std::max<std::size_t>(size_, 1u << 20);
  while (size < bytes) size *= 2;
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot size the shared memory of a worker");
  map(size);
}

void SharedMemory::map(std::size_t bytes) {
  if (bytes == size_ && data_ != nullptr) return;
  unmap();
  if (bytes == 0) return;
  void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (data == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "cannot map the shared memory");
  data_ = static_cast<std::byte*>(data);
  size_ = bytes;
}

// ---- JSON forms ---------------------------------------------------------------------------------

Json to_json(const ParamSpec& spec) {
  return {{"name", spec.name},         {"type", type_name(spec.type)},  {"choices", spec.choices},
          {"required", spec.required}, {"default", spec.default_value}, {"min", spec.min_value},
          {"max", spec.max_value},     {"help", spec.help}};
}

ParamSpec param_spec_from_json(const Json& json) {
  ParamSpec spec;
  spec.name = json.at("name").get<std::string>();
  spec.type = parse_type(json.at("type").get<std::string>());
  spec.choices = json.value("choices", std::vector<std::string>{});
  spec.required = json.value("required", false);
  spec.default_value = json.value("default", std::string());
  spec.min_value = json.value("min", std::int64_t{0});
  spec.max_value = json.value("max", INT64_MAX);
  spec.help = json.value("help", std::string());
  return spec;
}

Json to_json(const std::vector<ParamSpec>& specs) {
  Json list = Json::array();
  for (const ParamSpec& spec : specs) list.push_back(to_json(spec));
  return list;
}

std::vector<ParamSpec> param_specs_from_json(const Json& json) {
  std::vector<ParamSpec> specs;
  for (const Json& spec : json) specs.push_back(param_spec_from_json(spec));
  return specs;
}

Json to_json(const Params& params) {
  Json object = Json::object();
  for (const auto& [name, value] : params) object[name] = value;
  return object;
}

Params params_from_json(const Json& json) {
  Params params;
  for (const auto& [name, value] : json.items()) params[name] = value.get<std::string>();
  return params;
}

Json to_json(const Identity& identity) {
  return {{"library", identity.library},
          {"version", identity.version},
          {"configuration", identity.configuration},
          {"platform_key", identity.platform_key},
          {"details", identity.details}};
}

Identity identity_from_json(const Json& json) {
  Identity identity;
  identity.library = json.at("library").get<std::string>();
  identity.version = json.at("version").get<std::string>();
  identity.configuration = json.at("configuration").get<std::string>();
  identity.platform_key = json.at("platform_key").get<std::string>();
  identity.details = json.value("details", std::map<std::string, std::string>{});
  return identity;
}

Json to_json(const TargetInfo& info) {
  const NumericTraits& t = info.traits;
  return {{"description", info.description},
          {"n", info.n},
          {"traits",
           {{"input", to_string(t.input)},
            {"accumulator", to_string(t.accumulator)},
            {"output", to_string(t.output)},
            {"summand", summand_name(t.summand)},
            {"max_fused_width", t.max_fused_width},
            {"fused_extra_bits", t.fused_extra_bits},
            {"simulate_fused", t.simulate_fused},
            {"exact_arithmetic_model", t.exact_arithmetic_model}}},
          {"max_batch", info.max_batch},
          {"grid", {{"rows", info.grid.rows}, {"columns", info.grid.columns}}},
          {"columns_placement", info.columns_placement},
          {"column_right_factors", info.column_right_factors},
          {"alignment", to_string(info.alignment)},
          {"leading_dimensions", info.leading_dimensions},
          {"extra_masks", info.extra_masks},
          {"jobs_started", info.jobs_started}};
}

TargetInfo target_info_from_json(const Json& json) {
  TargetInfo info;
  info.description = json.at("description").get<std::string>();
  info.n = json.at("n").get<std::size_t>();
  const Json& t = json.at("traits");
  info.traits.input = format_named(t.at("input"));
  info.traits.accumulator = format_named(t.at("accumulator"));
  info.traits.output = format_named(t.at("output"));
  info.traits.summand = parse_summand(t.at("summand").get<std::string>());
  info.traits.max_fused_width = t.value("max_fused_width", std::size_t{2});
  info.traits.fused_extra_bits = t.value("fused_extra_bits", 0);
  info.traits.simulate_fused = t.value("simulate_fused", false);
  info.traits.exact_arithmetic_model = t.value("exact_arithmetic_model", true);
  info.max_batch = std::max<std::size_t>(1, json.value("max_batch", std::size_t{1}));
  if (json.contains("grid")) {
    info.grid.rows = json["grid"].value("rows", std::size_t{1});
    info.grid.columns = json["grid"].value("columns", std::size_t{1});
  }
  info.columns_placement = json.value("columns_placement", false);
  info.column_right_factors = json.value("column_right_factors", false);
  const std::string alignment = json.value("alignment", std::string("ignores"));
  if (alignment == "honours_offsets") info.alignment = AlignmentSupport::honours_offsets;
  else if (alignment == "not_applicable") info.alignment = AlignmentSupport::not_applicable;
  else if (alignment == "ignores") info.alignment = AlignmentSupport::ignores;
  else throw ProtocolError("unknown alignment support '" + alignment + "'");
  info.leading_dimensions = json.value("leading_dimensions", false);
  info.extra_masks = json.value("extra_masks", false);
  info.jobs_started = json.value("jobs_started", std::size_t{0});
  if (info.n == 0 || info.grid.rows == 0 || info.grid.columns == 0)
    throw ProtocolError("a target with no summands or an empty grid");
  return info;
}

// ---- errors -------------------------------------------------------------------------------------

Json error_to_json(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const ConfigError& e) {
    return {{"type", "config_error"}, {"message", e.what()}, {"parameter", e.parameter()}};
  } catch (const BackendUnavailable& e) {
    return {{"type", "unavailable"}, {"message", e.what()}, {"reason", to_string(e.reason())}};
  } catch (const BackendModuleError& e) {
    return {{"type", "module_error"}, {"message", e.what()}};
  } catch (const BatchInconsistent& e) {
    return {{"type", "batch_inconsistent"}, {"message", e.what()}};
  } catch (const RanksDisagree& e) {
    return {{"type", "ranks_disagree"}, {"message", e.what()}};
  } catch (const TargetError& e) {
    return {{"type", "target_error"}, {"message", e.what()}};
  } catch (const std::bad_alloc&) {
    return {{"type", "target_error"}, {"message", "out of memory (std::bad_alloc) in the worker"}};
  } catch (const std::exception& e) {
    return {{"type", "internal"}, {"message", e.what()}};
  } catch (...) {
    return {{"type", "internal"}, {"message", "an exception that is not a std::exception"}};
  }
}

void throw_error_from_json(const Json& error) {
  const std::string type = error.value("type", std::string("internal"));
  const std::string message = error.value("message", std::string("(no message)"));
  if (type == "config_error") throw ConfigError(error.value("parameter", std::string()), message);
  if (type == "unavailable") {
    const auto reason = parse_unavailability(error.value("reason", std::string()));
    throw BackendUnavailable(message, reason.value_or(Unavailability::unusable));
  }
  if (type == "module_error") throw BackendUnavailable(message, Unavailability::unusable);
  if (type == "batch_inconsistent") throw BatchInconsistent(message);
  if (type == "ranks_disagree") throw RanksDisagree(message);
  if (type == "target_error") throw TargetError(message);
  throw TargetError("the worker failed: " + message);
}

const Json& checked_reply(const Json& reply) {
  if (!reply.is_object() || !reply.contains("ok")) throw ProtocolError("a reply without \"ok\"");
  if (!reply["ok"].get<bool>()) throw_error_from_json(reply.value("error", Json::object()));
  return reply;
}

}  // namespace fprev::worker
