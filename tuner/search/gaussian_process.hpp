#pragma once
// A Gaussian-process regression of a standardised target over points in
// [0,1]^d: a Matérn 5/2 kernel with one length scale per dimension (so that
// parameters that do not matter stop counting in the distance), chosen with
// the noise by marginal likelihood in a coordinate search over a grid; with
// what a batch acquisition needs: the posterior mean and the vectors that
// give posterior covariances.
#include <vector>

#include <Eigen/Dense>

namespace vktune {

class GaussianProcess {
 public:
  // Fits to the rows of `x` and the targets `y` (any scale: they are
  // standardised here). Needs at least two points. Starts the search for
  // length scales from `previous`'s when given (same dimension count); with
  // `search` false, keeps `previous`'s length scales and noise as they are
  // (one factorisation instead of dozens).
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const GaussianProcess* previous = nullptr,
           bool search = true);

  // The prior covariance of two points (signal variance 1).
  double kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;
  double noise() const { return noise_; }
  // Standardised target <-> original scale.
  double standardise(double y) const { return (y - y_mean_) / y_scale_; }
  double unstandardise(double z) const { return y_mean_ + z * y_scale_; }

  // For the candidate rows of `c`: the posterior mean (standardised) and
  // V = L^-1 k(X, c), whose columns give the posterior covariance
  // k(c_i, c_j) - V_i . V_j.
  struct Posterior {
    Eigen::VectorXd mean;
    Eigen::MatrixXd v;
  };
  Posterior posterior(const Eigen::MatrixXd& c) const;

  const std::vector<double>& length_scales() const { return length_scales_; }

 private:
  Eigen::MatrixXd covariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const;
  // The covariance of x_ under the chosen hyperparameters, factorised, and
  // the weights of the standardised targets `z`.
  void factorise(const Eigen::VectorXd& z);
  // Log marginal likelihood of the standardised targets under the current
  // hyperparameters, from per-dimension squared differences; -inf when the
  // covariance is not positive definite.
  double log_likelihood(const std::vector<Eigen::MatrixXd>& squared, const Eigen::VectorXd& z) const;

  Eigen::MatrixXd x_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
  std::vector<double> length_scales_;
  double noise_ = 1e-2;
  double y_mean_ = 0, y_scale_ = 1;
};

}  // namespace vktune
