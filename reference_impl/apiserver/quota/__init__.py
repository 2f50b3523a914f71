"""Resource quota: upstream's ``k8s.io/apiserver/pkg/quota/v1`` (resource-list arithmetic,
the generic object-count evaluator) and ``pkg/quota/v1/evaluator/core`` (pods, services,
persistent volume claims, resource claims), shared by the ResourceQuota admission plugin
and the resource quota controller."""
