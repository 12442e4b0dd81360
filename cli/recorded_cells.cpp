#include "recorded_cells.h"

#include "option_limits.h"
#include "tilecheck/core/error.h"

namespace tc::cli {

void check_recorded_cell(const RecordedCell& r, const Catalogue& catalogue, const std::string& path) {
  const Cell& c = r.cell;
  const std::string where = cat(path, ": cell ", c.name(), ": ");
  require(c.sms >= 1 && c.sms <= kMaxGridSize, where, "grid size sms=", c.sms, " (expected 1..", kMaxGridSize,
          ", the grid sizes the plugin ABI accepts)");
  const CatalogueEntry* e = catalogue.find(c.case_id);
  require(e != nullptr, where, "case '", c.case_id, "' is not in the catalogue");
  const Shape& shape = e->spec.shape;
  try {
    validate_config(c.config, shape);
  } catch (const Error& error) {
    throw Error(cat(where, error.what()));
  }
  require(r.dtype == e->spec.format.dtype, where, "its output C is ", name(r.dtype), "; the case's is ",
          name(e->spec.format.dtype));
  require(r.C.rows() == shape.M && r.C.cols() == shape.N, where, "its output C is (", r.C.rows(), ", ", r.C.cols(),
          "); the case's is (", shape.M, ", ", shape.N, ")");
}

}  // namespace tc::cli
