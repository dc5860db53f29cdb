/* The cpus' frequency driver, after drivers/cpufreq/acpi-cpufreq.c: each cpu's P-states (as
 * its ACPI _PSS would list them), one policy a cpu, set by a write of the state's control
 * value to the cpu's IA32_PERF_CTL, from the scheduler's context (fast switch).  A module in
 * Debian: its functions are notrace here, as a kernel without it loaded lists none. */
#include "../../include/cpufreq.h"

/* _PSS: core frequency (MHz), transition latency (us), control value; fastest first */
struct acpi_processor_px {
	u64 core_frequency;
	u64 transition_latency;
	u64 control;
};

static const struct acpi_processor_px acpi_pss[] = {
	{ 3000, 10, 0x1e00 }, { 2600, 10, 0x1a00 }, { 2200, 10, 0x1600 },
	{ 1800, 10, 0x1200 }, { 1400, 10, 0x0e00 }, { 1000, 10, 0x0a00 },
};
#define ACPI_PSS_COUNT (sizeof(acpi_pss) / sizeof(acpi_pss[0]))

/* Each cpu's IA32_PERF_CTL, the P-state it runs in (0 from the firmware: no state's control
 * value, which reads as the fastest) */
struct acpi_cpufreq_data {
	u64 perf_ctl;
	struct cpufreq_frequency_table freq_table[ACPI_PSS_COUNT + 1];
};
static struct acpi_cpufreq_data acpi_cpufreq_data[NR_CPUS];

/* The table ascending (cpufreq_table_validate_and_sort's order), each entry's _PSS state */
static notrace int acpi_cpufreq_cpu_init(struct cpufreq_policy *policy)
{
	struct acpi_cpufreq_data *data = &acpi_cpufreq_data[policy->cpu];
	unsigned int i;

	for (i = 0; i < ACPI_PSS_COUNT; i++) {
		unsigned int state = ACPI_PSS_COUNT - 1 - i;

		data->freq_table[i].driver_data = state;
		data->freq_table[i].frequency = acpi_pss[state].core_frequency * 1000;
	}
	data->freq_table[i].frequency = CPUFREQ_TABLE_END;
	policy->freq_table = data->freq_table;
	policy->cpuinfo.min_freq = data->freq_table[0].frequency;
	policy->cpuinfo.max_freq = data->freq_table[ACPI_PSS_COUNT - 1].frequency;
	policy->cpuinfo.transition_latency = acpi_pss[0].transition_latency * 1000;
	policy->fast_switch_possible = true;	/* a policy of its own cpu */
	policy->driver_data = data;
	return 0;
}

/* The frequency of the P-state the cpu's PERF_CTL selects, the fastest for a value no state
 * has (get_cur_freq_on_cpu's extract_msr) */
static notrace unsigned int acpi_cpufreq_get(unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < ACPI_PSS_COUNT; i++)
		if (acpi_pss[i].control == acpi_cpufreq_data[cpu].perf_ctl)
			return acpi_pss[i].core_frequency * 1000;
	return acpi_pss[0].core_frequency * 1000;
}

/* The table's lowest frequency at or above the target (the governor's already resolved one) */
static notrace unsigned int acpi_cpufreq_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	struct acpi_cpufreq_data *data = policy->driver_data;
	struct cpufreq_frequency_table *entry = policy->freq_table;

	while (entry[1].frequency != CPUFREQ_TABLE_END && entry->frequency < target_freq)
		entry++;
	data->perf_ctl = acpi_pss[entry->driver_data].control;	/* wrmsr(MSR_IA32_PERF_CTL) */
	return entry->frequency;
}

static struct cpufreq_driver acpi_cpufreq_driver = {
	.name = "acpi-cpufreq",
	.init = acpi_cpufreq_cpu_init,
	.fast_switch = acpi_cpufreq_fast_switch,
	.get = acpi_cpufreq_get,
};

/* The module's init at boot */
notrace int acpi_cpufreq_init(void)
{
	return cpufreq_register_driver(&acpi_cpufreq_driver);
}
