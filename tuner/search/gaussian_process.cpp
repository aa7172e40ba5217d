#include "tuner/search/gaussian_process.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace vktune {

namespace {
double matern52(double scaled_distance) {
  const double r = std::sqrt(5.0) * scaled_distance;
  return (1 + r + r * r / 3) * std::exp(-r);
}
// Candidate length scales; the largest makes a dimension all but irrelevant.
constexpr double kLengths[] = {0.1, 0.2, 0.4, 0.8, 1.6, 6.0};
constexpr double kNoises[] = {1e-3, 1e-2, 5e-2, 0.2};
}  // namespace

double GaussianProcess::kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  double sum = 0;
  for (Eigen::Index d = 0; d < a.size(); ++d) {
    const double t = (a(d) - b(d)) / length_scales_[static_cast<std::size_t>(d)];
    sum += t * t;
  }
  return matern52(std::sqrt(sum));
}

Eigen::MatrixXd GaussianProcess::covariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const {
  Eigen::MatrixXd k(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.rows(); ++j) k(i, j) = kernel(a.row(i).transpose(), b.row(j).transpose());
  return k;
}

double GaussianProcess::log_likelihood(const std::vector<Eigen::MatrixXd>& squared, const Eigen::VectorXd& z) const {
  const auto n = z.size();
  Eigen::MatrixXd scaled = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t d = 0; d < squared.size(); ++d) scaled += squared[d] / (length_scales_[d] * length_scales_[d]);
  Eigen::MatrixXd k = scaled.unaryExpr([](double s) { return matern52(std::sqrt(s)); });
  k.diagonal().array() += noise_;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::VectorXd alpha = llt.solve(z);
  const double log_det = 2 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 * z.dot(alpha) - 0.5 * log_det - 0.5 * static_cast<double>(n) * std::log(2 * M_PI);
}

void GaussianProcess::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const GaussianProcess* previous,
                          bool search) {
  if (x.rows() < 2 || x.rows() != y.size()) throw Error(ErrorKind::internal, "gaussian process: too few points");
  x_ = x;
  y_mean_ = y.mean();
  const double spread = std::sqrt((y.array() - y_mean_).square().mean());
  y_scale_ = spread > 1e-12 ? spread : 1.0;
  const Eigen::VectorXd z = (y.array() - y_mean_) / y_scale_;
  const auto dims = static_cast<std::size_t>(x.cols());

  if (!search && previous && previous->length_scales_.size() == dims) {
    length_scales_ = previous->length_scales_;
    noise_ = previous->noise_;
    factorise(z);
    return;
  }
  std::vector<Eigen::MatrixXd> squared(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    const Eigen::VectorXd column = x.col(static_cast<Eigen::Index>(d));
    squared[d] = (column.replicate(1, x.rows()) - column.transpose().replicate(x.rows(), 1)).array().square();
  }

  double best = -std::numeric_limits<double>::infinity();
  if (previous && previous->length_scales_.size() == dims) {
    length_scales_ = previous->length_scales_;
    noise_ = previous->noise_;
    best = log_likelihood(squared, z);
  } else {
    // Start isotropic: one length scale for all, with the noise.
    std::vector<double> start(dims, 0.4);
    double start_noise = noise_;
    for (double length : kLengths) {
      for (double noise : kNoises) {
        length_scales_.assign(dims, length);
        noise_ = noise;
        const double l = log_likelihood(squared, z);
        if (l > best) best = l, start.assign(dims, length), start_noise = noise;
      }
    }
    length_scales_ = start;
    noise_ = start_noise;
  }
  // One pass of coordinate search: each dimension's length scale, then the
  // noise, keeping whatever raises the likelihood.
  for (std::size_t d = 0; d < dims; ++d) {
    const double kept = length_scales_[d];
    double chosen = kept;
    for (double length : kLengths) {
      if (length == kept) continue;
      length_scales_[d] = length;
      const double l = log_likelihood(squared, z);
      if (l > best) best = l, chosen = length;
    }
    length_scales_[d] = chosen;
  }
  const double kept_noise = noise_;
  double chosen_noise = kept_noise;
  for (double noise : kNoises) {
    if (noise == kept_noise) continue;
    noise_ = noise;
    const double l = log_likelihood(squared, z);
    if (l > best) best = l, chosen_noise = noise;
  }
  noise_ = chosen_noise;
  factorise(z);
}

void GaussianProcess::factorise(const Eigen::VectorXd& z) {
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
