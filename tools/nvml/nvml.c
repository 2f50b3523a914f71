/* garhwal's NVML library: a libnvidia-ml.so.1 the unmodified pynvml loads.
 *
 * Devices come from a profile file (GARHWAL_NVML_PROFILE) and their dynamic values and
 * faults from a state file (GARHWAL_NVML_STATE) that the injector rewrites atomically
 * (rename), so faults arrive while a client runs: every call re-reads the state when the
 * file changed, and nvmlEventSetWait_v2 blocks on inotify for new events.
 * Both files are "key=value" lines written by fixtures/nvml (the Python side validates).
 * GARHWAL_NVML_VISIBLE (UUIDs, comma-separated) narrows what a process sees, as a GPU
 * runtime does for a container given some of the node's GPUs.
 * Only calls a health agent and a metrics exporter need are exported: anything else is
 * absent, so pynvml reports NVML_ERROR_FUNCTION_NOT_FOUND as with an older driver.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_TIMEOUT = 10, NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25, NVML_ERROR_UNKNOWN = 999,
};

#define MAX_DEV 64
#define MAX_EVENTS 4096
#define MAX_SETS 64
/* Event types this library delivers (nvml.h nvmlEventType*). */
#define EV_SBE 0x1ULL
#define EV_DBE 0x2ULL
#define EV_XID 0x8ULL
#define EV_CLOCK 0x10ULL
#define EV_SUPPORTED (EV_SBE | EV_DBE | EV_XID | EV_CLOCK)

typedef struct nvmlDevice_st {
  unsigned index, domain, bus, dev, pci_device_id, pci_subsystem_id, minor;
  int numa;
  char name[96], uuid[96], serial[30], arch_unused[4];
  unsigned long long mem_total, mem_reserved;
  unsigned power_limit_mw, clock_graphics, clock_sm, clock_mem, max_graphics, max_mem;
  int cc_major, cc_minor;
  /* dynamic, from the state file */
  unsigned temp, power_mw, util_gpu, util_mem;
  unsigned long long mem_used, clock_reasons, energy_mj;
  unsigned long long ecc[2][2]; /* [corrected/uncorrected][volatile/aggregate] */
  unsigned remap_corr, remap_unc, remap_pending, remap_failure;
  int lost;
} device_t;
typedef device_t *nvmlDevice_t;

typedef struct { unsigned long long id; unsigned device; unsigned long long type, data; } event_t;

typedef struct nvmlEventSet_st {
  int used;
  unsigned long long cursor;     /* last event id seen */
  unsigned long long mask[MAX_DEV];
} eventset_t;
typedef eventset_t *nvmlEventSet_t;

typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned gpu, memory; } nvmlUtilization_t;
typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType, eventData;
  unsigned gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
#define NVML_MEMORY_V2 ((unsigned)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int refcount;
static unsigned ndev;
static device_t devs[MAX_DEV];
static event_t events[MAX_EVENTS];
static unsigned nevents;
static unsigned long long last_event_id;
static eventset_t sets[MAX_SETS];
static char profile_path[4096], state_path[4096], driver_version[80] = "550.163.01";
static int cuda_version = 12040;
static struct stat state_st;
static int state_seen;
/* The devices this process may see, by profile index: all, or those whose UUIDs
 * GARHWAL_NVML_VISIBLE lists (as a GPU runtime exposes only a container's own GPUs);
 * indexes are renumbered 0..nvis-1 in that order, as NVML does in such a container. */
static unsigned vis[MAX_DEV], nvis;

static void trim(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
}

static void set_str(char *dst, size_t cap, const char *v) { snprintf(dst, cap, "%s", v); }

/* One "device.N.key=value" assignment; unknown keys are an error so typos do not pass. */
static int assign(device_t *d, const char *key, const char *v, int dynamic) {
  unsigned long long u = strtoull(v, NULL, 0);
  if (!dynamic) {
    if (!strcmp(key, "name")) set_str(d->name, sizeof d->name, v);
    else if (!strcmp(key, "uuid")) set_str(d->uuid, sizeof d->uuid, v);
    else if (!strcmp(key, "serial")) set_str(d->serial, sizeof d->serial, v);
    else if (!strcmp(key, "domain")) d->domain = (unsigned)u;
    else if (!strcmp(key, "bus")) d->bus = (unsigned)u;
    else if (!strcmp(key, "device")) d->dev = (unsigned)u;
    else if (!strcmp(key, "pci_device_id")) d->pci_device_id = (unsigned)u;
    else if (!strcmp(key, "pci_subsystem_id")) d->pci_subsystem_id = (unsigned)u;
    else if (!strcmp(key, "minor")) d->minor = (unsigned)u;
    else if (!strcmp(key, "numa")) d->numa = (int)strtol(v, NULL, 0);
    else if (!strcmp(key, "memory_total")) d->mem_total = u;
    else if (!strcmp(key, "memory_reserved")) d->mem_reserved = u;
    else if (!strcmp(key, "power_limit_mw")) d->power_limit_mw = (unsigned)u;
    else if (!strcmp(key, "clock_graphics")) d->clock_graphics = (unsigned)u;
    else if (!strcmp(key, "clock_sm")) d->clock_sm = (unsigned)u;
    else if (!strcmp(key, "clock_mem")) d->clock_mem = (unsigned)u;
    else if (!strcmp(key, "max_graphics")) d->max_graphics = (unsigned)u;
    else if (!strcmp(key, "max_mem")) d->max_mem = (unsigned)u;
    else if (!strcmp(key, "cc_major")) d->cc_major = (int)u;
    else if (!strcmp(key, "cc_minor")) d->cc_minor = (int)u;
    else return -1;
    return 0;
  }
  if (!strcmp(key, "temp")) d->temp = (unsigned)u;
  else if (!strcmp(key, "power_mw")) d->power_mw = (unsigned)u;
  else if (!strcmp(key, "util_gpu")) d->util_gpu = (unsigned)u;
  else if (!strcmp(key, "util_mem")) d->util_mem = (unsigned)u;
  else if (!strcmp(key, "memory_used")) d->mem_used = u;
  else if (!strcmp(key, "clock_reasons")) d->clock_reasons = u;
  else if (!strcmp(key, "energy_mj")) d->energy_mj = u;
  else if (!strcmp(key, "ecc_sbe_volatile")) d->ecc[0][0] = u;
  else if (!strcmp(key, "ecc_sbe_aggregate")) d->ecc[0][1] = u;
  else if (!strcmp(key, "ecc_dbe_volatile")) d->ecc[1][0] = u;
  else if (!strcmp(key, "ecc_dbe_aggregate")) d->ecc[1][1] = u;
  else if (!strcmp(key, "remap_correctable")) d->remap_corr = (unsigned)u;
  else if (!strcmp(key, "remap_uncorrectable")) d->remap_unc = (unsigned)u;
  else if (!strcmp(key, "remap_pending")) d->remap_pending = (unsigned)u;
  else if (!strcmp(key, "remap_failure")) d->remap_failure = (unsigned)u;
  else if (!strcmp(key, "lost")) d->lost = (int)u;
  else return -1;
  return 0;
}

static int load(const char *path, int dynamic) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "garhwal-nvml: cannot read %s: %s\n", path, strerror(errno));
    return -1;
  }
  char line[512], key[64], val[400];
  unsigned lineno = 0, idx;
  if (dynamic) nevents = 0;
  int rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    trim(line);
    if (!line[0] || line[0] == '#') continue;
    unsigned long long id, type, data;
    if (dynamic && sscanf(line, "event=%llu %u %llx %llu", &id, &idx, &type, &data) == 4) {
      if (idx >= ndev || nevents >= MAX_EVENTS) { rc = -1; break; }
      events[nevents++] = (event_t){id, idx, type, data};
      continue;
    }
    if (!dynamic && sscanf(line, "devices=%u", &idx) == 1) {
      if (idx > MAX_DEV) { rc = -1; break; }
      ndev = idx;
      for (unsigned i = 0; i < ndev; i++) { memset(&devs[i], 0, sizeof devs[i]); devs[i].index = i; }
      continue;
    }
    if (!dynamic && sscanf(line, "driver_version=%79s", driver_version) == 1) continue;
    if (!dynamic && sscanf(line, "cuda_version=%d", &cuda_version) == 1) continue;
    if (sscanf(line, "device.%u.%63[^=]=%399[^\n]", &idx, key, val) == 3 && idx < ndev &&
        assign(&devs[idx], key, val, dynamic) == 0)
      continue;
    rc = -1;
    break;
  }
  fclose(f);
  if (rc) fprintf(stderr, "garhwal-nvml: %s:%u: malformed line\n", path, lineno);
  return rc;
}

/* Re-read the state file when it changed (the injector replaces it by rename). */
static void refresh_locked(void) {
  struct stat st;
  if (!state_path[0] || stat(state_path, &st) != 0) return;
  if (state_seen && st.st_ino == state_st.st_ino && st.st_mtim.tv_sec == state_st.st_mtim.tv_sec &&
      st.st_mtim.tv_nsec == state_st.st_mtim.tv_nsec && st.st_size == state_st.st_size)
    return;
  if (load(state_path, 1) == 0) { state_st = st; state_seen = 1; }
}

static void set_visible(const char *list) {
  nvis = 0;
  if (!list || !*list) {
    for (unsigned i = 0; i < ndev; i++) vis[nvis++] = i;
    return;
  }
  char buf[4096];
  set_str(buf, sizeof buf, list);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    for (unsigned i = 0; i < ndev; i++) {
      if (strcmp(tok, devs[i].uuid)) continue;
      int dup = 0;
      for (unsigned j = 0; j < nvis; j++) dup |= vis[j] == i;
      if (!dup) vis[nvis++] = i;
    }
  }
}

static nvmlReturn_t do_init(void) {
  pthread_mutex_lock(&mu);
  if (refcount > 0) { refcount++; pthread_mutex_unlock(&mu); return NVML_SUCCESS; }
  const char *p = getenv("GARHWAL_NVML_PROFILE"), *s = getenv("GARHWAL_NVML_STATE");
  nvmlReturn_t rc = NVML_SUCCESS;
  if (!p || !*p) rc = NVML_ERROR_DRIVER_NOT_LOADED;  /* as with no kernel driver */
  else {
    set_str(profile_path, sizeof profile_path, p);
    set_str(state_path, sizeof state_path, s ? s : "");
    ndev = 0; state_seen = 0; nevents = 0;
    if (load(profile_path, 0) != 0) rc = NVML_ERROR_UNKNOWN;
    else {
      set_visible(getenv("GARHWAL_NVML_VISIBLE"));
      refresh_locked();
      last_event_id = nevents ? events[nevents - 1].id : 0;
      memset(sets, 0, sizeof sets);
      refcount = 1;
    }
  }
  pthread_mutex_unlock(&mu);
  return rc;
}

API nvmlReturn_t nvmlInit(void) { return do_init(); }
API nvmlReturn_t nvmlInit_v2(void) { return do_init(); }
API nvmlReturn_t nvmlInitWithFlags(unsigned flags) { (void)flags; return do_init(); }

API nvmlReturn_t nvmlShutdown(void) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
  if (refcount > 0) refcount--;
  pthread_mutex_unlock(&mu);
  return rc;
}

API const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    default: return "Unknown Error";
  }
}

/* Checks shared by every device query: initialised, a handle of ours, on the bus. The
 * lock is held on success and released by the caller (UNLOCK). */
static nvmlReturn_t enter(nvmlDevice_t d, const void *out) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = NVML_SUCCESS;
  if (refcount == 0) rc = NVML_ERROR_UNINITIALIZED;
  else if (!d || d < devs || d >= devs + ndev || !out) rc = NVML_ERROR_INVALID_ARGUMENT;
  else {
    refresh_locked();
    if (d->lost) rc = NVML_ERROR_GPU_IS_LOST;
  }
  if (rc != NVML_SUCCESS) pthread_mutex_unlock(&mu);
  return rc;
}
#define ENTER(d, out) do { nvmlReturn_t _r = enter((d), (out)); if (_r) return _r; } while (0)
#define UNLOCK() pthread_mutex_unlock(&mu)

static nvmlReturn_t copy_str(char *dst, unsigned len, const char *src) {
  if (strlen(src) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(dst, src, strlen(src) + 1);
  return NVML_SUCCESS;
}

static nvmlReturn_t system_str(char *buf, unsigned len, const char *v) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED
                    : !buf ? NVML_ERROR_INVALID_ARGUMENT : copy_str(buf, len, v);
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlSystemGetDriverVersion(char *b, unsigned n) { return system_str(b, n, driver_version); }
API nvmlReturn_t nvmlSystemGetNVMLVersion(char *b, unsigned n) {
  char v[96];
  snprintf(v, sizeof v, "12.%s", driver_version);
  return system_str(b, n, v);
}
API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED : !v ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc) *v = cuda_version;
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return nvmlSystemGetCudaDriverVersion(v); }

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED : !count ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc) *count = nvis;
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetCount(unsigned *count) { return nvmlDeviceGetCount_v2(count); }

/* Handles stay obtainable for a lost GPU (the agent needs one to learn it is lost);
 * every query on it answers NVML_ERROR_GPU_IS_LOST. */
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *out) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED
                    : (!out || index >= nvis) ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc) *out = &devs[vis[index]];
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *o) { return nvmlDeviceGetHandleByIndex_v2(i, o); }

static nvmlReturn_t find(int by_uuid, const char *key, nvmlDevice_t *out) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED : (!key || !out) ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_FOUND;
  for (unsigned v = 0; rc == NVML_ERROR_NOT_FOUND && v < nvis; v++) {
    device_t *d = &devs[vis[v]];
    char bus[32];
    snprintf(bus, sizeof bus, "%08X:%02X:%02X.0", d->domain, d->bus, d->dev);
    if (by_uuid ? !strcmp(key, d->uuid) : !strcasecmp(key, bus)) { *out = d; rc = NVML_SUCCESS; }
  }
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *u, nvmlDevice_t *o) { return find(1, u, o); }
API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *b, nvmlDevice_t *o) { return find(0, b, o); }
API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *b, nvmlDevice_t *o) { return find(0, b, o); }

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned n) {
  ENTER(d, b); nvmlReturn_t rc = copy_str(b, n, d->name); UNLOCK(); return rc;
}
API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *b, unsigned n) {
  ENTER(d, b); nvmlReturn_t rc = copy_str(b, n, d->uuid); UNLOCK(); return rc;
}
API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *b, unsigned n) {
  ENTER(d, b); nvmlReturn_t rc = copy_str(b, n, d->serial); UNLOCK(); return rc;
}
API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned *v) {
  ENTER(d, v);
  for (unsigned i = 0; i < nvis; i++)
    if (vis[i] == d->index) *v = i;  /* its place among the visible devices */
  UNLOCK();
  return 0;
}
API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned *v) { ENTER(d, v); *v = d->minor; UNLOCK(); return 0; }
API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned *v) { ENTER(d, v); *v = (unsigned)d->numa; UNLOCK(); return 0; }

static nvmlReturn_t pci(nvmlDevice_t d, nvmlPciInfo_t *p) {
  ENTER(d, p);
  memset(p, 0, sizeof *p);
  p->domain = d->domain; p->bus = d->bus; p->device = d->dev;
  p->pciDeviceId = d->pci_device_id; p->pciSubSystemId = d->pci_subsystem_id;
  snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%04X:%02X:%02X.0", d->domain & 0xffff, d->bus, d->dev);
  snprintf(p->busId, sizeof p->busId, "%08X:%02X:%02X.0", d->domain, d->bus, d->dev);
  UNLOCK();
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) { return pci(d, p); }
API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t *p) { return pci(d, p); }

/* v1 counts the driver's reservation as used; v2 reports it apart (as the real driver). */
API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
  ENTER(d, m);
  m->total = d->mem_total;
  m->used = d->mem_used + d->mem_reserved;
  m->free = m->total > m->used ? m->total - m->used : 0;
  UNLOCK();
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
  ENTER(d, m);
  nvmlReturn_t rc = NVML_SUCCESS;
  if (m->version != NVML_MEMORY_V2) rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  else {
    m->total = d->mem_total; m->reserved = d->mem_reserved; m->used = d->mem_used;
    unsigned long long taken = d->mem_reserved + d->mem_used;
    m->free = m->total > taken ? m->total - taken : 0;
  }
  UNLOCK();
  return rc;
}

API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
  ENTER(d, u); u->gpu = d->util_gpu; u->memory = d->util_mem; UNLOCK(); return 0;
}
API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t) {
  ENTER(d, t);
  nvmlReturn_t rc = sensor == 0 ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT; /* NVML_TEMPERATURE_GPU only */
  if (!rc) *t = d->temp;
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *p) { ENTER(d, p); *p = d->power_mw; UNLOCK(); return 0; }
API nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned *p) { ENTER(d, p); *p = d->power_limit_mw; UNLOCK(); return 0; }
API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *p) { ENTER(d, p); *p = d->power_limit_mw; UNLOCK(); return 0; }
API nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *e) { ENTER(d, e); *e = d->energy_mj; UNLOCK(); return 0; }
API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *maj, int *min) {
  ENTER(d, maj);
  nvmlReturn_t rc = min ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
  if (!rc) { *maj = d->cc_major; *min = d->cc_minor; }
  UNLOCK();
  return rc;
}

static nvmlReturn_t clock_of(nvmlDevice_t d, int type, unsigned *c, int max) {
  ENTER(d, c);
  nvmlReturn_t rc = NVML_SUCCESS;
  switch (type) { /* NVML_CLOCK_GRAPHICS, SM, MEM; VIDEO is not modelled */
    case 0: *c = max ? d->max_graphics : d->clock_graphics; break;
    case 1: *c = max ? d->max_graphics : d->clock_sm; break;
    case 2: *c = max ? d->max_mem : d->clock_mem; break;
    case 3: rc = NVML_ERROR_NOT_SUPPORTED; break;
    default: rc = NVML_ERROR_INVALID_ARGUMENT;
  }
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int t, unsigned *c) { return clock_of(d, t, c, 0); }
API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int t, unsigned *c) { return clock_of(d, t, c, 1); }

API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r) {
  ENTER(d, r); *r = d->clock_reasons; UNLOCK(); return 0;
}
API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r) {
  return nvmlDeviceGetCurrentClocksEventReasons(d, r);
}
API nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t d, unsigned long long *r) {
  ENTER(d, r); *r = 0x1ffULL; UNLOCK(); return 0;
}
API nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r) {
  return nvmlDeviceGetSupportedClocksEventReasons(d, r);
}
/* Data-centre SXM parts have no fan: the real driver says NOT_SUPPORTED. */
API nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t d, unsigned *s) { ENTER(d, s); UNLOCK(); return NVML_ERROR_NOT_SUPPORTED; }
API nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t d, unsigned fan, unsigned *s) {
  (void)fan; ENTER(d, s); UNLOCK(); return NVML_ERROR_NOT_SUPPORTED;
}

API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pending) {
  ENTER(d, cur);
  nvmlReturn_t rc = pending ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
  if (!rc) { *cur = 1; *pending = 1; }
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int err, int counter, unsigned long long *c) {
  ENTER(d, c);
  nvmlReturn_t rc = (err < 0 || err > 1 || counter < 0 || counter > 1) ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc) *c = d->ecc[err][counter];
  UNLOCK();
  return rc;
}
/* Counts live in device memory (DRAM); the on-chip locations of Hopper report zero and
 * texture/CBU locations do not exist there. */
API nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t d, int err, int counter, int loc, unsigned long long *c) {
  ENTER(d, c);
  nvmlReturn_t rc = (err < 0 || err > 1 || counter < 0 || counter > 1 || loc < 0 || loc > 7)
                        ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc && (loc == 4 || loc == 5 || loc == 6)) rc = NVML_ERROR_NOT_SUPPORTED;
  if (!rc) *c = loc == 2 ? d->ecc[err][counter] : 0;
  UNLOCK();
  return rc;
}
API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failure) {
  ENTER(d, corr);
  nvmlReturn_t rc = (unc && pending && failure) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
  if (!rc) { *corr = d->remap_corr; *unc = d->remap_unc; *pending = d->remap_pending; *failure = d->remap_failure; }
  UNLOCK();
  return rc;
}
/* Hopper and later retire rows by remapping, not pages. */
API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *p) { ENTER(d, p); UNLOCK(); return NVML_ERROR_NOT_SUPPORTED; }

API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *t) {
  ENTER(d, t); *t = EV_SUPPORTED; UNLOCK(); return 0;
}

API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *out) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED : !out ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_UNKNOWN;
  for (unsigned i = 0; rc == NVML_ERROR_UNKNOWN && i < MAX_SETS; i++) {
    if (sets[i].used) continue;
    refresh_locked();
    memset(&sets[i], 0, sizeof sets[i]);
    sets[i].used = 1;
    sets[i].cursor = nevents ? events[nevents - 1].id : 0; /* only events from now on */
    *out = &sets[i];
    rc = NVML_SUCCESS;
  }
  UNLOCK();
  return rc;
}

static int valid_set(nvmlEventSet_t s) { return s && s >= sets && s < sets + MAX_SETS && s->used; }

API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t s) {
  ENTER(d, d);
  nvmlReturn_t rc = !valid_set(s) ? NVML_ERROR_INVALID_ARGUMENT
                    : (types & ~EV_SUPPORTED) ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
  if (!rc) s->mask[d - devs] |= types;
  UNLOCK();
  return rc;
}

API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t s) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED : !valid_set(s) ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
  if (!rc) s->used = 0;
  UNLOCK();
  return rc;
}

/* The next registered event after the set's cursor, or 0. */
static int next_event(nvmlEventSet_t s, nvmlEventData_t *data) {
  for (unsigned i = 0; i < nevents; i++) {
    event_t *e = &events[i];
    if (e->id <= s->cursor) continue;
    s->cursor = e->id;
    if (!(s->mask[e->device] & e->type)) continue;
    memset(data, 0, sizeof *data);
    data->device = &devs[e->device];
    data->eventType = e->type;
    data->eventData = e->data;
    data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu; /* not a MIG event */
    return 1;
  }
  return 0;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits on inotify for the state file's directory (the injector renames a new file in),
 * so a waiting agent costs no CPU; falls back to 20 ms polling without inotify. */
API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *data, unsigned timeoutms) {
  pthread_mutex_lock(&mu);
  nvmlReturn_t rc = refcount == 0 ? NVML_ERROR_UNINITIALIZED
                    : (!valid_set(s) || !data) ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_TIMEOUT;
  char dir[4096] = ".";
  if (state_path[0]) {
    set_str(dir, sizeof dir, state_path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0; else set_str(dir, sizeof dir, ".");
  }
  UNLOCK();
  if (rc != NVML_ERROR_TIMEOUT) return rc;
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd >= 0 && inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) { close(fd); fd = -1; }
  long long deadline = now_ms() + timeoutms;
  for (;;) {
    pthread_mutex_lock(&mu);
    int got = 0;
    if (refcount == 0 || !s->used) rc = NVML_ERROR_UNINITIALIZED;
    else { refresh_locked(); got = next_event(s, data); }
    UNLOCK();
    if (got) { rc = NVML_SUCCESS; break; }
    if (rc == NVML_ERROR_UNINITIALIZED) break;
    long long left = deadline - now_ms();
    if (left <= 0) { rc = NVML_ERROR_TIMEOUT; break; }
    if (fd >= 0) {
      struct pollfd pfd = {fd, POLLIN, 0};
      if (poll(&pfd, 1, (int)(left < 1000 ? left : 1000)) > 0) {
        char buf[4096];
        while (read(fd, buf, sizeof buf) > 0) {}
      }
    } else {
      struct timespec ts = {0, 20 * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  if (fd >= 0) close(fd);
  return rc;
}
API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t s, nvmlEventData_t *d, unsigned t) { return nvmlEventSetWait_v2(s, d, t); }
