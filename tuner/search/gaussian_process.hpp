#pragma once
// A Gaussian-process regression of a standardised target over points in
// [0,1]^d (a Matérn 5/2 kernel; length scale and noise chosen by marginal
// likelihood from a small grid), with what a batch acquisition needs: the
// posterior mean and the vectors that give posterior covariances.
#include <Eigen/Dense>

namespace vktune {

class GaussianProcess {
 public:
  // Fits to the rows of `x` and the targets `y` (any scale: they are
  // standardised here). Needs at least two points.
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

  // The prior covariance of two points (signal variance 1).
  double kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;
  double noise() const { return noise_; }
  // Standardised target <-> original scale.
  double standardise(double y) const { return (y - y_mean_) / y_scale_; }

  // For the candidate rows of `c`: the posterior mean (standardised) and
  // V = L^-1 k(X, c), whose columns give the posterior covariance
  // k(c_i, c_j) - V_i . V_j.
  struct Posterior {
    Eigen::VectorXd mean;
    Eigen::MatrixXd v;
  };
  Posterior posterior(const Eigen::MatrixXd& c) const;

  double length_scale() const { return length_scale_; }

 private:
  Eigen::MatrixXd covariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const;

  Eigen::MatrixXd x_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
  double length_scale_ = 0.3, noise_ = 1e-2;
  double y_mean_ = 0, y_scale_ = 1;
};

}  // namespace vktune
