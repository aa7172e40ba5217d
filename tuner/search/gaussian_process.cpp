#include "tuner/search/gaussian_process.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace vktune {

namespace {
double matern52(double distance, double length_scale) {
  const double r = std::sqrt(5.0) * distance / length_scale;
  return (1 + r + r * r / 3) * std::exp(-r);
}
}  // namespace

double GaussianProcess::kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  return matern52((a - b).norm(), length_scale_);
}

Eigen::MatrixXd GaussianProcess::covariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const {
  Eigen::MatrixXd k(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.rows(); ++j) k(i, j) = matern52((a.row(i) - b.row(j)).norm(), length_scale_);
  return k;
}

void GaussianProcess::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  if (x.rows() < 2 || x.rows() != y.size()) throw Error(ErrorKind::internal, "gaussian process: too few points");
  x_ = x;
  y_mean_ = y.mean();
  const double spread = std::sqrt((y.array() - y_mean_).square().mean());
  y_scale_ = spread > 1e-12 ? spread : 1.0;
  const Eigen::VectorXd z = (y.array() - y_mean_) / y_scale_;
  const double n = static_cast<double>(x.rows());

  double best = -std::numeric_limits<double>::infinity();
  double best_length = length_scale_, best_noise = noise_;
  // Timing noise is about 1% of a time; in standardised log time that is
  // small, but the model must also absorb what the encoding cannot express.
  for (double length : {0.1, 0.17, 0.28, 0.45, 0.75, 1.2}) {
    for (double noise : {1e-3, 1e-2, 5e-2, 0.2}) {
      length_scale_ = length;
      Eigen::MatrixXd k = covariance(x_, x_);
      k.diagonal().array() += noise;
      Eigen::LLT<Eigen::MatrixXd> llt(k);
      if (llt.info() != Eigen::Success) continue;
      const Eigen::VectorXd alpha = llt.solve(z);
      const double log_det = 2 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
      const double likelihood = -0.5 * z.dot(alpha) - 0.5 * log_det - 0.5 * n * std::log(2 * M_PI);
      if (likelihood > best) {
        best = likelihood;
        best_length = length;
        best_noise = noise;
      }
    }
  }
  length_scale_ = best_length;
  noise_ = best_noise;
  Eigen::MatrixXd k = covariance(x_, x_);
  k.diagonal().array() += noise_;
  llt_.compute(k);
  if (llt_.info() != Eigen::Success) throw Error(ErrorKind::internal, "gaussian process: covariance not positive");
  alpha_ = llt_.solve(z);
}

GaussianProcess::Posterior GaussianProcess::posterior(const Eigen::MatrixXd& c) const {
  const Eigen::MatrixXd k = covariance(x_, c);  // n × m
  Posterior p;
  p.mean = k.transpose() * alpha_;
  p.v = llt_.matrixL().solve(k);
  return p;
}

}  // namespace vktune
